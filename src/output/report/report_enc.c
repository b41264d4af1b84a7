/*
 * report_enc.c — typed-column blobs for the HTML report (see report_enc.h
 * and web/DATA.md).
 */
#include "report_enc.h"

#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "err.h"
#include "jsonw.h"
#include "par.h"
#include "report_blob.h"
#include "report_blobq.h"
#include "scratch.h"

/* The blobs' bytes come from the thread's scratch pool (scratch.h: the
 * report opens one for a rank), pages in already where an array the rank
 * freed had them; a blob's are the worker's to free, the rest go back.
 * (ml_scratch_alloc, ml_scratch_free) */

/* While a worker encodes the blobs, a descriptor's ",\"z\":1" is not known
 * yet: it holds ZMARK, the blob id, ZMARK instead, and ml_blobs_finish
 * writes the flag there.  No JSON the report writes holds this byte (its
 * strings escape control characters). */
#define ZMARK '\001'

/* The byte planes (of values `width` bytes wide) that are zero in every
 * value: bit k for byte k, from `any`, the OR of all the values. */
static unsigned zero_planes(uint64_t any, size_t width)
{
    unsigned zp = 0;
    for (size_t k = 0; k < width; k++)
        if (!((any >> (8 * k)) & 0xff)) zp |= 1u << k;
    return zp;
}

/* Opens a column's descriptor, {"b":ID,"dt":DT,"n":N, in meta (the caller
 * has placed it: jw_value_begin); the caller adds its members and closes it. */
static void descriptor_open(jw *w, ml_buf *meta, unsigned id, const char *dt, size_t n)
{
    jw_init_buf(w, meta, false);
    jw_obj(w);
    jw_key(w, "b"); jw_u64(w, id);
    jw_key(w, "dt"); jw_str(w, dt);
    jw_key(w, "n"); jw_u64(w, n);
}

/* How a blob's values stand for the column's (web/DATA.md): as they are;
 * "i", an f64 column of integers as int64s (their byte planes far more
 * alike than a double's, whose mantissa moves with the magnitude: the high
 * ones zero, the low ones as good as random, not deflated; with "d", their
 * deltas, zigzag-coded); "dn", a u32 (or u16) column as u32s, each non-zero
 * value by its difference from the non-zero value before (zigzag, + 1; a
 * zero stays 0): columns of row numbers that grow among zeros, as the
 * slices' launchers. */
enum { FORM_PLAIN, FORM_INT64, FORM_NZ_DELTA };

/* Stores n values `width` bytes wide as one blob (or, with `runs`, the
 * runs' values and lengths that make them: 2 * runs values); `any`: the OR of the
 * values (says which byte planes are zero throughout: those are left out of
 * a shuffled blob, "zp"); `first`: a delta-coded column's first value ("o").
 * `owned`: bytes were malloc'd for this blob and are the callee's (the
 * worker frees them when done); else they are copied if they must outlive
 * the call. */
static void put_blob(ml_blobs *bl, ml_buf *meta, const char *dt, size_t n, size_t runs, size_t width, int delta,
                     int64_t first, uint64_t any, const void *bytes, void *owned, int form)
{
    unsigned id = bl->count++;
    size_t nbytes = (runs ? 2 * runs : n) * width;
    bool shuffled = ml_blob_shuffled(width, nbytes);
    unsigned zp = shuffled ? zero_planes(any, width) : 0;
    bl->raw_bytes += nbytes;
    jw w;
    descriptor_open(&w, meta, id, dt, n);
    if (delta) { jw_key(&w, "d"); jw_i64(&w, 1); }
    if (runs) { jw_key(&w, "r"); jw_u64(&w, runs); }
    if (shuffled) { jw_key(&w, "s"); jw_i64(&w, 1); }
    if (zp) { jw_key(&w, "zp"); jw_u64(&w, zp); }
    if (form == FORM_INT64) { jw_key(&w, "i"); jw_i64(&w, 1); }
    if (form == FORM_NZ_DELTA) { jw_key(&w, "dn"); jw_i64(&w, 1); }
    if (bl->q) {
        /* the mark sits between members: no JSON value, written as text */
        ml_buf_printf(meta, "%c%u%c", ZMARK, id, ZMARK);
        void *own = owned;
        if (!own) {
            own = ml_scratch_alloc(nbytes);
            memcpy(own, bytes, nbytes);
        }
        ml_blobq_push(bl->q, id, bl->level, width, zp, own, nbytes);
    } else {
        if (ml_blob_encode(&bl->scratch, &bl->html, id, bl->level, width, zp, bytes, nbytes)) {
            jw_key(&w, "z"); jw_i64(&w, 1);
        }
        ml_scratch_free(owned, nbytes);
    }
    if (delta) { jw_key(&w, "o"); jw_i64(&w, first); }
    jw_end(&w);
}

void ml_blobs_async(ml_blobs *bl)
{
    if (bl->q || bl->capture || !ml_par_allowed()) return;
    bl->q = ml_blobq_start(&bl->html, bl->count, bl->max_pending ? bl->max_pending : ML_BLOBQ_MAX_PENDING);
    if (bl->q) bl->q_first = bl->count;
}

void ml_blobs_reclaim(ml_blobs *bl)
{
    if (bl->q) ml_blobq_reclaim(bl->q);
}

void ml_blobs_recycle(ml_blobs *bl, bool on)
{
    if (bl->q) ml_blobq_recycle(bl->q, on);
}

void ml_blobs_finish(ml_blobs *bl, ml_buf *meta)
{
    ml_blobs_columns_done(bl);
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
    jw w;
    descriptor_open(&w, meta, bl->count++, dt == 'i' ? "i64" : dt == 'u' ? "u32" : "u8", n);
    jw_end(&w);
    bl->raw_bytes += n * width;
    if (bl->capture == ML_BLOBS_DESCRIBE) return;
    ml_col_raw c = { dt, n, ml_malloc(n ? n * width : 1) };
    if (n) memcpy(c.v, v, n * width);
    VEC_PUSH(&bl->raw, c);
}

#ifdef __SSE2__
/* as_i32's four values (or deltas) at a time from v + i (with delta, v[i - 1]
 * is read): the low halves into w + i, the OR of them into *a; the OR of the
 * values' x + 2^31 >> 32 (non-zero: one outside the i32 range) returned. */
static inline __m128i i32_of4(int32_t *w, const int64_t *v, size_t i, int delta, __m128i *a)
{
    __m128i x0 = _mm_loadu_si128((const __m128i *)(v + i)), x1 = _mm_loadu_si128((const __m128i *)(v + i + 2));
    if (delta) {
        x0 = _mm_sub_epi64(x0, _mm_loadu_si128((const __m128i *)(v + i - 1)));
        x1 = _mm_sub_epi64(x1, _mm_loadu_si128((const __m128i *)(v + i + 1)));
    }
    const __m128i bias = _mm_set1_epi64x(0x80000000ll); /* (x - INT32_MIN, as the scalar loop) */
    __m128i out = _mm_or_si128(_mm_srli_epi64(_mm_add_epi64(x0, bias), 32), _mm_srli_epi64(_mm_add_epi64(x1, bias), 32));
    __m128i lo = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(x0), _mm_castsi128_ps(x1), _MM_SHUFFLE(2, 0, 2, 0)));
    _mm_storeu_si128((__m128i *)(w + i), lo);
    *a = _mm_or_si128(*a, lo);
    return out;
}
#endif

/* v (or its deltas, the first 0) as i32 into w, the OR of them into *any;
 * whether every one fits.  Branch-free within blocks of 256 (a value out of
 * range is seen in the block's end), so that the loop is a few instructions
 * a value (four at a time with SSE2); the rest of w is not written once one
 * did not fit. */
static int as_i32(int32_t *w, const int64_t *v, size_t n, int delta, uint32_t *any)
{
    uint32_t a = 0;
#ifdef __SSE2__
    __m128i a4 = _mm_setzero_si128();
#endif
    for (size_t at = 0; at < n; at += 256) {
        size_t end = n - at < 256 ? n : at + 256, i = at;
        uint64_t wide = 0; /* non-zero: some x is outside [INT32_MIN, INT32_MAX] */
        if (delta && !i) w[i++] = 0;
#ifdef __SSE2__
        __m128i wide4 = _mm_setzero_si128();
        for (; i + 4 <= end; i += 4) wide4 = _mm_or_si128(wide4, i32_of4(w, v, i, delta, &a4));
        wide4 = _mm_or_si128(wide4, _mm_srli_si128(wide4, 8));
        wide = (uint64_t)_mm_cvtsi128_si32(wide4);
#endif
        if (delta) {
            for (; i < end; i++) {
                int64_t x = (int64_t)((uint64_t)v[i] - (uint64_t)v[i - 1]); /* (wrapping, not undefined) */
                wide |= ((uint64_t)x - (uint64_t)INT32_MIN) >> 32;
                w[i] = (int32_t)x;
                a |= (uint32_t)w[i];
            }
        } else {
            for (; i < end; i++) {
                wide |= ((uint64_t)v[i] - (uint64_t)INT32_MIN) >> 32;
                w[i] = (int32_t)v[i];
                a |= (uint32_t)w[i];
            }
        }
        if (wide) return 0;
    }
#ifdef __SSE2__
    a4 = _mm_or_si128(a4, _mm_srli_si128(a4, 8));
    a4 = _mm_or_si128(a4, _mm_srli_si128(a4, 4));
    a |= (uint32_t)_mm_cvtsi128_si32(a4);
#endif
    *any = a;
    return 1;
}

/* A column of long runs (a curve's deltas where most points change another
 * curve: 0, 0, 0, +x, 0, ...) as its runs instead: the runs' values, then
 * their lengths ("r": far fewer bytes to deflate, the cost that mattered,
 * and to decode).  Returns the number of runs where they take at most half
 * the values' room (ML_RUNS_MAX_SHARE), else 0.  (The lengths are i32: a
 * column of more values than that is left as it is.) */
#define ML_RUNS_MAX_SHARE 2
#define ML_RUNS_MIN_N 256 /* below that the column is small whatever its form */
static size_t count_runs(const int32_t *w, size_t n)
{
    if (n < ML_RUNS_MIN_N || n > INT32_MAX) return 0;
    size_t runs = 1, most = n / (2 * ML_RUNS_MAX_SHARE);
    for (size_t at = 1; at < n; at += 1024) { /* a column of few repeats leaves early */
        size_t end = n - at < 1024 ? n : at + 1024, i = at, same = 0;
#ifdef __SSE2__
        __m128i eq = _mm_setzero_si128(); /* -1 a lane where a value repeats the one before */
        for (; i + 4 <= end; i += 4)
            eq = _mm_sub_epi32(eq, _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(w + i)),
                                                   _mm_loadu_si128((const __m128i *)(w + i - 1))));
        uint32_t lanes[4];
        _mm_storeu_si128((__m128i *)lanes, eq);
        same = (size_t)lanes[0] + lanes[1] + lanes[2] + lanes[3];
#endif
        for (; i < end; i++) same += w[i] == w[i - 1];
        runs += end - at - same;
        if (runs > most) return 0;
    }
    return runs;
}

/* The `runs` runs of w[0..n) into out: their values, then their lengths;
 * the OR of those 2 * runs values (their zero planes). */
static uint32_t write_runs(const int32_t *w, size_t n, size_t runs, int32_t *out)
{
    int32_t *len = out + runs;
    size_t r = 0, start = 0;
    uint32_t a = 0;
    while (start < n) {
        int32_t x = w[start];
        size_t i = start + 1;
#ifdef __SSE2__
        /* a run's end four values at a time (the runs chosen are long) */
        __m128i xs = _mm_set1_epi32(x);
        while (i + 4 <= n && _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(w + i)), xs)) == 0xffff)
            i += 4;
#endif
        while (i < n && w[i] == x) i++;
        out[r] = x;
        len[r++] = (int32_t)(i - start);
        a |= (uint32_t)x | (uint32_t)(i - start);
        start = i;
    }
    return a;
}

/* Room for n i32 values: the buffer kept from the last column where it is
 * large enough and not twice as large (its pages, all written, would go
 * with a much smaller blob), else a new one that is kept instead. */
static int32_t *i32_room(ml_blobs *bl, size_t n)
{
    if (!n) n = 1;
    if (bl->i32_cap < n || bl->i32_cap / 2 > n) {
        ml_scratch_free(bl->i32, bl->i32_cap * sizeof *bl->i32);
        bl->i32 = ml_scratch_alloc(n * sizeof *bl->i32);
        bl->i32_cap = n;
    }
    return bl->i32;
}

void ml_blobs_columns_done(ml_blobs *bl)
{
    ml_scratch_free(bl->i32, bl->i32_cap * sizeof *bl->i32);
    bl->i32 = NULL;
    bl->i32_cap = 0;
}

/* n i32 values w (deltas from `first` where delta; `any`: the OR of them)
 * as a column: their runs where those pay (a small blob of its own), else
 * w itself becomes the blob's.  w: bl->i32 (kept for the next column when
 * it does not become the blob) or the caller's malloc'd block, taken. */
static void put_i32(ml_blobs *bl, ml_buf *meta, int32_t *w, size_t n, int delta, int64_t first, uint32_t any)
{
    size_t runs = count_runs(w, n);
    if (runs) {
        int32_t *r = ml_scratch_alloc(2 * runs * sizeof *r);
        any = write_runs(w, n, runs, r);
        put_blob(bl, meta, "i32", n, runs, sizeof *w, delta, first, any, r, r, FORM_PLAIN);
        if (w != bl->i32) ml_scratch_free(w, n * sizeof *w);
    } else {
        if (w == bl->i32) {
            bl->i32 = NULL;
            bl->i32_cap = 0;
        }
        put_blob(bl, meta, "i32", n, 0, sizeof *w, delta, first, any, w, w, FORM_PLAIN);
    }
}

void ml_col_i32_take(ml_blobs *bl, ml_buf *meta, int32_t *v, size_t n)
{
    if (bl->capture) { /* (kept as int64s, as ml_col_i64's) */
        int64_t *x = ml_malloc((n ? n : 1) * sizeof *x);
        for (size_t i = 0; i < n; i++) x[i] = v[i];
        capture(bl, meta, 'i', x, n, sizeof *x);
        free(x);
        free(v);
        return;
    }
    uint32_t any = 0;
    for (size_t i = 0; i < n; i++) any |= (uint32_t)v[i];
    put_i32(bl, meta, v, n, 0, 0, any);
}

void ml_col_i64(ml_blobs *bl, ml_buf *meta, const int64_t *v, size_t n, int try_delta)
{
    if (bl->capture) { capture(bl, meta, 'i', v, n, sizeof *v); return; }
    /* Smallest exact form: i32 deltas from the first value (sorted times,
     * running totals), i32 values, or f64 (exact below 2^53, which covers
     * bytes and relative ns).  One pass writes the first form tried while
     * checking that it fits; the next only when it does not. */
    int32_t *w = i32_room(bl, n);
    uint32_t any = 0;
    int delta = try_delta && n > 0, fits = as_i32(w, v, n, delta, &any);
    /* deltas only help when they repeat: one value that fits is kept as it is */
    if (delta && (!fits || (n == 1 && v[0] >= INT32_MIN && v[0] <= INT32_MAX))) {
        delta = 0;
        fits = as_i32(w, v, n, 0, &any);
    }
    if (fits) {
        put_i32(bl, meta, w, n, delta, delta ? v[0] : 0, any);
        return;
    }
    if (ml_blob_shuffled(sizeof *v, n * sizeof *v)) {
        /* the integers themselves ("i", copied if they must outlive the
         * call), or their deltas zigzag-coded ("i" and "d": the times of
         * frees, in the order of the allocations) where those leave more
         * planes zero (and stay below 2^53, exact in the page's doubles) */
        uint64_t any_v = (uint64_t)v[0], any_z = 0, *z = ml_scratch_alloc(n * sizeof *z);
        z[0] = 0;
        for (size_t i = 1; i < n; i++) {
            uint64_t d = (uint64_t)v[i] - (uint64_t)v[i - 1]; /* (wrapping, not undefined) */
            z[i] = (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
            any_v |= (uint64_t)v[i];
            any_z |= z[i];
        }
        if (!(any_z >> 53) && __builtin_popcount(zero_planes(any_z, 8)) > __builtin_popcount(zero_planes(any_v, 8))) {
            put_blob(bl, meta, "f64", n, 0, sizeof *z, 1, v[0], any_z, z, z, FORM_INT64);
            return;
        }
        ml_scratch_free(z, n * sizeof *z);
        put_blob(bl, meta, "f64", n, 0, sizeof *v, 0, 0, any_v, v, NULL, FORM_INT64);
        return;
    }
    double *f = ml_scratch_alloc(n * sizeof *f);
    uint64_t any_bits = 0;
    for (size_t i = 0; i < n; i++) {
        f[i] = (double)v[i];
        uint64_t bits;
        memcpy(&bits, &f[i], sizeof bits);
        any_bits |= bits;
    }
    put_blob(bl, meta, "f64", n, 0, sizeof *f, 0, 0, any_bits, f, f, FORM_PLAIN);
}

/* ml_col_u32 and ml_col_u32_take: `own`, v's malloc'd block is the
 * callee's, packed to u16 in place or made the blob itself (no second
 * block written: the slices' columns of a 400 MB trace are 8 MB each). */
static void col_u32(ml_blobs *bl, ml_buf *meta, const uint32_t *v, uint32_t *own, size_t n)
{
    if (bl->capture) { capture(bl, meta, 'u', v, n, sizeof *v); free(own); return; }
    uint32_t any = 0; /* at most 0xffff when every value is */
    size_t i = 0;
#ifdef __SSE2__
    __m128i a4 = _mm_setzero_si128();
    for (; i + 4 <= n; i += 4) a4 = _mm_or_si128(a4, _mm_loadu_si128((const __m128i *)(v + i)));
    a4 = _mm_or_si128(a4, _mm_srli_si128(a4, 8));
    a4 = _mm_or_si128(a4, _mm_srli_si128(a4, 4));
    any = (uint32_t)_mm_cvtsi128_si32(a4);
#endif
    for (; i < n; i++) any |= v[i];
    if (any <= UINT16_MAX) {
        /* (in place: value i's u16 goes to bytes 2i, at or below the 4i it is read from,
         * and the SSE2 loop loads its 32 bytes before storing 16 at 2i) */
        uint16_t *w = own ? (uint16_t *)(void *)own : ml_scratch_alloc(n * sizeof *w);
        i = 0;
#ifdef __SSE2__
        /* the low halves, sign-extended, so that the signed pack keeps them exactly */
        for (; i + 8 <= n; i += 8) {
            __m128i x0 = _mm_loadu_si128((const __m128i *)(v + i)), x1 = _mm_loadu_si128((const __m128i *)(v + i + 4));
            x0 = _mm_srai_epi32(_mm_slli_epi32(x0, 16), 16), x1 = _mm_srai_epi32(_mm_slli_epi32(x1, 16), 16);
            _mm_storeu_si128((__m128i *)(w + i), _mm_packs_epi32(x0, x1));
        }
#endif
        for (; i < n; i++) w[i] = (uint16_t)v[i];
        put_blob(bl, meta, "u16", n, 0, sizeof *w, 0, 0, any, w, w, FORM_PLAIN);
        return;
    }
    put_blob(bl, meta, "u32", n, 0, sizeof *v, 0, 0, any, v, own, FORM_PLAIN);
}

void ml_col_u32(ml_blobs *bl, ml_buf *meta, const uint32_t *v, size_t n) { col_u32(bl, meta, v, NULL, n); }
void ml_col_u32_take(ml_blobs *bl, ml_buf *meta, uint32_t *v, size_t n) { col_u32(bl, meta, v, v, n); }

void ml_col_u16_take(ml_blobs *bl, ml_buf *meta, uint16_t *v, size_t n)
{
    if (bl->capture) { /* (kept as u32s, as ml_col_u32's) */
        uint32_t *x = ml_malloc((n ? n : 1) * sizeof *x);
        for (size_t i = 0; i < n; i++) x[i] = v[i];
        capture(bl, meta, 'u', x, n, sizeof *x);
        free(x);
        free(v);
        return;
    }
    uint32_t any = 0;
    for (size_t i = 0; i < n; i++) any |= v[i];
    put_blob(bl, meta, "u16", n, 0, sizeof *v, 0, 0, any, v, v, FORM_PLAIN);
}

/* ml_col_u32_nz_delta and its _take (`own`: the differences written over v). */
static void col_u32_nz_delta(ml_blobs *bl, ml_buf *meta, const uint32_t *v, uint32_t *own, size_t n)
{
    if (bl->capture || !ml_blob_shuffled(sizeof *v, n * sizeof *v)) { col_u32(bl, meta, v, own, n); return; }
    uint32_t *d = own ? own : ml_malloc(n * sizeof *d), last = 0, any = 0, any_v = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = v[i], z = 0;
        if (x) {
            uint32_t step = x - last; /* (wrapping: the decoder adds it back so) */
            z = ((step << 1) ^ -(step >> 31)) + 1;
            if (!z) { /* a difference of -2^31: zigzag 2^32 - 1, + 1 wraps to a zero */
                if (own) { /* the values before i back from their differences (none was lost) */
                    uint32_t at = 0;
                    for (size_t k = 0; k < i; k++)
                        if (d[k]) {
                            uint32_t zz = d[k] - 1;
                            d[k] = at += (zz >> 1) ^ -(zz & 1);
                        }
                } else {
                    free(d);
                }
                col_u32(bl, meta, v, own, n);
                return;
            }
            last = x;
            any_v |= x;
            any |= z;
        }
        d[i] = z;
    }
    put_blob(bl, meta, any_v <= UINT16_MAX ? "u16" : "u32", n, 0, sizeof *d, 0, 0, any, d, d, FORM_NZ_DELTA);
}

void ml_col_u32_nz_delta(ml_blobs *bl, ml_buf *meta, const uint32_t *v, size_t n) { col_u32_nz_delta(bl, meta, v, NULL, n); }
void ml_col_u32_nz_delta_take(ml_blobs *bl, ml_buf *meta, uint32_t *v, size_t n) { col_u32_nz_delta(bl, meta, v, v, n); }

void ml_col_u8(ml_blobs *bl, ml_buf *meta, const uint8_t *v, size_t n)
{
    if (bl->capture) { capture(bl, meta, 'b', v, n, 1); return; }
    put_blob(bl, meta, "u8", n, 0, 1, 0, 0, 0, v, NULL, FORM_PLAIN);
}

void ml_col_u8_take(ml_blobs *bl, ml_buf *meta, uint8_t *v, size_t n)
{
    if (bl->capture) { capture(bl, meta, 'b', v, n, 1); free(v); return; }
    put_blob(bl, meta, "u8", n, 0, 1, 0, 0, 0, v, v, FORM_PLAIN);
}

void ml_blobs_free(ml_blobs *bl)
{
    ml_blobs_finish(bl, NULL);
    ml_blobs_columns_done(bl);
    ml_buf_free(&bl->html);
    ml_blob_scratch_free(&bl->scratch);
    for (size_t i = 0; i < bl->raw.len; i++) free(bl->raw.v[i].v);
    VEC_FREE(&bl->raw);
    *bl = (ml_blobs){0};
}
