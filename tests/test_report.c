/* test_report.c — the report's data: M4 pyramid, column encoding, and the
 * data of a tiny hand-written profile (peak, live set, budget, atomic write). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ascend.h"
#include "check.h"
#include "curve.h"
#include "m4.h"
#include "report.h"
#include "report_blob.h"
#include "report_lz.h"

TEST(m4_pyramid_keeps_extremes)
{
    int64_t v[10] = {5, 1, 9, 3, 3, 7, 0, 8, 2, 9};
    ml_m4 m;
    ml_m4_build(v, 10, &m);
    CHECK_EQ_I64(m.levels, 2);             /* 10 -> 3 -> 1 */
    CHECK_EQ_I64(m.total, 4);
    CHECK_EQ_I64(ml_m4_level_size(10, 1), 3);
    CHECK_EQ_I64(m.argmin[0], 1);          /* {5,1,9,3} */
    CHECK_EQ_I64(m.argmax[0], 2);
    CHECK_EQ_I64(m.argmin[1], 6);          /* {3,7,0,8} */
    CHECK_EQ_I64(m.argmax[2], 9);          /* {2,9} */
    CHECK_EQ_I64(m.argmin[3], 6);          /* top */
    CHECK_EQ_I64(m.argmax[3], 2);          /* ties: the earliest 9 */
    ml_m4_free(&m);
    ml_m4_build(v, 1, &m);
    CHECK_EQ_I64(m.total, 0);
    ml_m4_free(&m);
}

TEST(columns_pick_the_smallest_exact_form)
{
    ml_blobs bl = {0};
    ml_buf meta = {0};
    int64_t times[3] = {1000000000000LL, 1000000000005LL, 1000000000009LL};
    ml_col_i64(&bl, &meta, times, 3, 1);
    CHECK_CONTAINS(meta.p, "\"dt\":\"i32\",\"n\":3,\"d\":1,\"o\":1000000000000");
    meta.len = 0;
    int64_t big[2] = {1LL << 40, 0};
    ml_col_i64(&bl, &meta, big, 2, 1);
    CHECK_CONTAINS(meta.p, "\"dt\":\"f64\"");
    meta.len = 0;
    uint32_t small[2] = {1, 70000};
    ml_col_u32(&bl, &meta, small, 2);
    CHECK_CONTAINS(meta.p, "\"dt\":\"u32\"");
    CHECK_EQ_I64(bl.count, 3);
    CHECK_CONTAINS(bl.html.p, "<script type=\"application/x-memlens\" id=\"ml-b2\">AQAAAHARAQA=</script>");
    /* one value: as it is when it fits, else a delta of 0 from it */
    meta.len = 0;
    int64_t one = 7, one_big = 1LL << 40;
    ml_col_i64(&bl, &meta, &one, 1, 1);
    CHECK_EQ_STR(meta.p, "{\"b\":3,\"dt\":\"i32\",\"n\":1}");
    meta.len = 0;
    ml_col_i64(&bl, &meta, &one_big, 1, 1);
    CHECK_EQ_STR(meta.p, "{\"b\":4,\"dt\":\"i32\",\"n\":1,\"d\":1,\"o\":1099511627776}");
    meta.len = 0;
    int64_t jump[3] = {0, 1LL << 40, 5}; /* deltas and values out of i32 */
    ml_col_i64(&bl, &meta, jump, 3, 1);
    CHECK_CONTAINS(meta.p, "\"dt\":\"f64\",\"n\":3}");
    meta.len = 0;
    /* long columns (four values at a time, then the rest): deltas 256 and
     * 512 in turn, one of them 2^24 more (planes 0 and 2 zero: zp 5) or 2^33
     * more (no i32: f64), where the rest would go as four or after them */
    enum { LN = 1003 };
    int64_t *lv = malloc(LN * sizeof *lv);
    size_t spikes[] = { 1, 500, 1002 };
    for (size_t k = 0; k < 3; k++)
        for (int wide = 0; wide < 2; wide++) {
            lv[0] = 1000;
            for (size_t i = 1; i < LN; i++)
                lv[i] = lv[i - 1] + 256 + 256 * (int64_t)(i % 2) + (i == spikes[k] ? (wide ? 1LL << 33 : 1LL << 24) : 0);
            meta.len = 0;
            ml_col_i64(&bl, &meta, lv, LN, 1);
            /* (wide: the int64 deltas, zigzag-coded, planes 0 2 3 5 6 7 zero) */
            CHECK_CONTAINS(meta.p, wide ? "\"dt\":\"f64\",\"n\":1003,\"d\":1,\"s\":1,\"zp\":237,\"i\":1" : "\"dt\":\"i32\",\"n\":1003,\"d\":1,\"s\":1,\"zp\":5,");
            meta.len = 0;
            for (size_t i = 0; i < LN; i++) lv[i] -= 1000; /* the values themselves (no deltas): fit but for the 2^33 */
            ml_col_i64(&bl, &meta, lv, LN, 0);
            CHECK_CONTAINS(meta.p, wide ? "\"dt\":\"f64\"" : "\"dt\":\"i32\",\"n\":1003,\"s\":1,");
        }
    free(lv);
    meta.len = 0;
    jw w; /* the meta's writer: strings safe inside the page's <script> */
    jw_init_buf(&w, &meta, false);
    jw_str(&w, "a\"b</script>\n");
    CHECK_EQ_STR(meta.p, "\"a\\\"b<\\/script>\\n\"");
    ml_buf_free(&meta);
    ml_blobs_free(&bl);
}

TEST(blobs_hold_their_columns_byte_planes)
{
    enum { N = 300 };
    uint32_t v[N];
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        v[i] = (uint32_t)x & 0xffff00ff; /* byte 1 zero throughout: a plane of zeros */
    }
    unsigned char planes[N * 4];
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < 4; k++) planes[k * N + i] = (unsigned char)(v[i] >> (8 * k));
    CHECK(ml_blob_shuffled(4, sizeof v));
    CHECK(!ml_blob_shuffled(1, sizeof planes)); /* bytes are their own planes */
    CHECK(!ml_blob_shuffled(4, ML_BLOB_MIN_DEFLATE - 4)); /* too small to pay */
    ml_buf a = {0}, b = {0}, c = {0}, d = {0}, e = {0};
    ml_blob_scratch s = {0}, fresh = {0};
    /* all four planes, the zero one too: it deflates */
    int za = ml_blob_encode(&s, &a, 7, 0, 4, 0, v, sizeof v), zb = ml_blob_encode(&s, &b, 7, 0, 1, 0, planes, sizeof planes);
    CHECK_EQ_I64(za, zb);
    CHECK(za);
    CHECK_EQ_STR(a.p, b.p); /* the values' blob is their planes' */
    /* the zero plane left out (zp bit 1): planes 0, 2, 3, which do not deflate */
    memmove(planes + N, planes + 2 * N, 2 * N);
    CHECK_EQ_I64(ml_blob_encode(&s, &c, 7, 0, 4, 1u << 1, v, sizeof v), 0);
    CHECK_EQ_I64(ml_blob_encode(&s, &d, 7, 0, 1, 0, planes, 3 * N), 0);
    CHECK_EQ_STR(c.p, d.p);
    /* the scratch reused for a smaller blob: as a fresh one writes it */
    ml_buf_free(&c), ml_buf_free(&d);
    CHECK_EQ_I64(ml_blob_encode(&s, &c, 7, 0, 4, 0, v, sizeof v / 2), ml_blob_encode(&fresh, &d, 7, 0, 4, 0, v, sizeof v / 2));
    CHECK(c.len < a.len);
    CHECK_EQ_STR(c.p, d.p);
    /* every plane zero: an empty blob */
    CHECK_EQ_I64(ml_blob_encode(&s, &e, 3, 0, 4, 15, v, sizeof v), 0);
    CHECK_EQ_STR(e.p, "<script type=\"application/x-memlens\" id=\"ml-b3\"></script>\n");
    ml_blob_scratch_free(&s), ml_blob_scratch_free(&fresh);
    ml_buf_free(&a), ml_buf_free(&b), ml_buf_free(&c), ml_buf_free(&d), ml_buf_free(&e);
    /* the columns' descriptors say which planes were left out */
    ml_blobs bl = {0};
    ml_buf meta = {0};
    ml_col_u32(&bl, &meta, v, N);
    CHECK_EQ_STR(meta.p, "{\"b\":0,\"dt\":\"u32\",\"n\":300,\"s\":1,\"zp\":2}");
    meta.len = 0;
    int64_t t[N];
    for (size_t i = 0; i < N; i++) t[i] = 5000 + 256 * (int64_t)(i + i / 3 * 2 + i % 3); /* deltas 256, 256, 512: planes 0, 2, 3 zero */
    ml_col_i64(&bl, &meta, t, N, 1);
    CHECK_EQ_STR(meta.p, "{\"b\":1,\"dt\":\"i32\",\"n\":300,\"d\":1,\"s\":1,\"zp\":13,\"z\":1,\"o\":5000}");
    ml_buf_free(&meta);
    ml_blobs_free(&bl);
}

TEST(byte_planes_of_every_width_and_mask_are_the_bytes_in_order)
{
    enum { MAXN = 1000 };
    unsigned char *v = malloc(8 * MAXN), *planes = malloc(8 * MAXN);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < 8 * MAXN; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        v[i] = (unsigned char)(x % 7); /* deflates: both blobs take the same path */
    }
    ml_blob_scratch s = {0};
    size_t ns[] = { 257, 300, 1000 }, widths[] = { 2, 4, 8 };
    int bad = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++) {
            size_t w = widths[a], n = ns[b];
            for (unsigned zp = 0; zp < 1u << w; zp++) {
                size_t kept = 0;
                for (size_t k = 0; k < w; k++) {
                    if (zp >> k & 1) continue;
                    for (size_t i = 0; i < n; i++) planes[kept * n + i] = v[i * w + k];
                    kept++;
                }
                ml_buf e = {0}, f = {0};
                /* level 2 for both: the default's choice reads each plane apart (one here, kept there) */
                int ze = ml_blob_encode(&s, &e, 1, 2, w, zp, v, n * w);
                int zf = kept ? ml_blob_encode(&s, &f, 1, 2, 1, 0, planes, kept * n) : 0;
                if (!kept) ml_buf_puts(&f, "<script type=\"application/x-memlens\" id=\"ml-b1\"></script>\n");
                if (ze != zf || strcmp(e.p, f.p)) bad++;
                ml_buf_free(&e), ml_buf_free(&f);
            }
        }
    CHECK_EQ_I64(bad, 0);
    ml_blob_scratch_free(&s);
    free(v), free(planes);
}

/* The bytes of blob element html (base64 between its tags) into out; their count. */
static size_t blob_bytes(const char *html, unsigned char *out)
{
    const char *p = strchr(html, '>') + 1;
    size_t n = 0;
    unsigned acc = 0, bits = 0;
    for (; *p && *p != '<' && *p != '='; p++) {
        const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        acc = acc << 6 | (unsigned)(strchr(a, *p) - a), bits += 6;
        if (bits >= 8) bits -= 8, out[n++] = (unsigned char)(acc >> bits);
    }
    return n;
}

/* The n values (width bytes each, of the planes a shuffled blob's
 * descriptor keeps) of blob element html, inflated if meta says "z":1, into
 * out (n * width bytes, little-endian values); whether the sizes agree. */
static bool unshuffled(const char *html, const char *meta, size_t n, size_t width, unsigned char *out)
{
    unsigned char *z = malloc(n * width + 64), *planes = malloc(n * width + 1);
    size_t zn = blob_bytes(html, z);
    uLongf pn = n * width;
    if (strstr(meta, "\"z\":1")) { if (uncompress(planes, &pn, z, zn) != Z_OK) pn = 0; }
    else memcpy(planes, z, zn), pn = zn;
    const char *zps = strstr(meta, "\"zp\":");
    unsigned zp = zps ? (unsigned)strtoul(zps + 5, NULL, 10) : 0;
    size_t kept = 0;
    for (size_t k = 0; k < width; k++) {
        for (size_t i = 0; i < n; i++) out[i * width + k] = zp >> k & 1 ? 0 : planes[kept * n + i];
        if (!(zp >> k & 1)) kept++;
    }
    free(z), free(planes);
    return pn == kept * n;
}

/* An f64 column of integers is stored as their int64s ("i"), the zero high
 * planes left out; a column of row numbers among zeros as the zigzag of its
 * non-zero values' differences + 1 ("dn", u32s whatever its dt). */
TEST(wide_integers_and_growing_rows_have_forms_of_their_own)
{
    enum { N = 1000 };
    int64_t t[N];
    uint32_t rows[N], rows16[N];
    for (size_t i = 0; i < N; i++) {
        t[i] = (int64_t)3000000000 + (int64_t)i * 1234567 - (i == 7 ? (int64_t)1 << 40 : 0); /* one negative */
        rows[i] = i % 3 ? 0 : i == 300 ? 5 : i == 600 ? 4000000000u : (uint32_t)(i + 17); /* a step back, a wrap */
        rows16[i] = i % 4 ? 0 : (uint32_t)(i / 2 + 1);
    }
    ml_blobs bl = {0};
    ml_buf meta = {0};
    /* steps of 1234567 (one back by 2^40): as zigzag deltas, which leave 5 planes zero, not 0 */
    ml_col_i64(&bl, &meta, t, N, 0);
    CHECK_CONTAINS(meta.p, "\"dt\":\"f64\",\"n\":1000,\"d\":1,\"s\":1,");
    CHECK_CONTAINS(meta.p, "\"i\":1");
    CHECK_CONTAINS(meta.p, "\"o\":3000000000}");
    uint64_t got[N];
    CHECK(unshuffled(bl.html.p, meta.p, N, 8, (unsigned char *)got));
    int64_t acc = 3000000000;
    size_t wrong = 0;
    for (size_t i = 0; i < N; i++) {
        acc += (int64_t)(got[i] >> 1) ^ -(int64_t)(got[i] & 1);
        wrong += acc != t[i];
    }
    CHECK_EQ_I64(wrong, 0);
    ml_blobs_free(&bl);
    /* values that jump about: their deltas leave no more planes zero, the int64s themselves */
    uint64_t r = 88172645463325252ULL;
    for (size_t i = 0; i < N; i++) r ^= r << 13, r ^= r >> 7, r ^= r << 17, t[i] = (int64_t)(r >> 24);
    meta.len = 0;
    ml_col_i64(&bl, &meta, t, N, 0);
    CHECK_CONTAINS(meta.p, "\"dt\":\"f64\",\"n\":1000,\"s\":1,");
    CHECK_CONTAINS(meta.p, "\"i\":1");
    CHECK(!strstr(meta.p, "\"d\":1"));
    CHECK(unshuffled(bl.html.p, meta.p, N, 8, (unsigned char *)got));
    CHECK(!memcmp(got, t, sizeof t));
    ml_blobs_free(&bl);
    /* small: not shuffled, the doubles as they were */
    meta.len = 0;
    ml_col_i64(&bl, &meta, t, 3, 0);
    CHECK_EQ_STR(meta.p, "{\"b\":0,\"dt\":\"f64\",\"n\":3}");
    ml_blobs_free(&bl);

    for (int wide = 1; wide >= 0; wide--) {
        const uint32_t *v = wide ? rows : rows16;
        meta.len = 0;
        ml_col_u32_nz_delta(&bl, &meta, v, N);
        CHECK_CONTAINS(meta.p, wide ? "\"dt\":\"u32\",\"n\":1000,\"s\":1," : "\"dt\":\"u16\",\"n\":1000,\"s\":1,");
        CHECK_CONTAINS(meta.p, "\"dn\":1");
        uint32_t st[N], last = 0;
        CHECK(unshuffled(bl.html.p, meta.p, N, 4, (unsigned char *)st));
        size_t bad = 0;
        for (size_t i = 0; i < N; i++) {
            uint32_t x = 0;
            if (st[i]) {
                uint32_t z = st[i] - 1;
                x = last += (z >> 1) ^ (uint32_t)-(int32_t)(z & 1);
            }
            bad += x != v[i];
        }
        CHECK_EQ_I64(bad, 0);
        ml_blobs_free(&bl);
    }
    /* too few for planes: the plain column */
    meta.len = 0;
    ml_col_u32_nz_delta(&bl, &meta, rows, 10);
    CHECK_EQ_STR(meta.p, "{\"b\":0,\"dt\":\"u16\",\"n\":10}"); /* (its first ten fit) */
    ml_blobs_free(&bl);
    ml_buf_free(&meta);
}

/* Each _take encoder (the caller's block handed over, packed or rewritten
 * in place) writes the column its copying form writes: u32s that fit in
 * 16 bits (packed in place) and that do not, u16s as u32s, i32s as i64s,
 * and non-zero deltas with a difference of -2^31, which the in-place form
 * must undo back to the values before falling back to plain u32s. */
TEST(take_encoders_write_what_the_copying_ones_write)
{
    enum { N = 3000 };
    for (int c = 0; c < 5; c++) {
        uint32_t *u = malloc(N * sizeof *u);
        uint64_t x = 88172645463325252ULL + (uint64_t)c;
        for (size_t i = 0; i < N; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            u[i] = c == 0 ? (uint32_t)(i / 7) : c == 1 ? (uint32_t)(x % 60000u) : (uint32_t)(x >> 8) % 3u ? (uint32_t)(i * 2654435761u) : 0;
        }
        if (c == 3) u[N / 2] = 0x80000001u, u[N / 2 + 1] = 1; /* a step of -2^31 halfway */
        if (c == 4) u[1] = 0x80000001u, u[2] = 1, u[0] = 0;    /* ... near the start */
        ml_blobs a = {0}, b = {0};
        ml_buf am = {0}, bm = {0};
        uint32_t *own = malloc(N * sizeof *own);
        memcpy(own, u, N * sizeof *u);
        if (c < 2) {
            ml_col_u32(&a, &am, u, N);
            ml_col_u32_take(&b, &bm, own, N);
        } else {
            ml_col_u32_nz_delta(&a, &am, u, N);
            ml_col_u32_nz_delta_take(&b, &bm, own, N);
        }
        if (c >= 3) CHECK(strstr(am.p, "\"dn\"") == NULL); /* (the fallback was taken) */
        CHECK_EQ_STR(bm.p, am.p);
        CHECK_EQ_I64((int64_t)b.html.len, (int64_t)a.html.len);
        CHECK(a.html.len == b.html.len && memcmp(a.html.p, b.html.p, a.html.len) == 0);
        ml_blobs_free(&a); ml_blobs_free(&b);
        ml_buf_free(&am); ml_buf_free(&bm);
        if (c == 1) { /* the same values as u16s, and as i32s */
            uint16_t *h = malloc(N * sizeof *h);
            int32_t *w = malloc(N * sizeof *w);
            int64_t *l = malloc(N * sizeof *l);
            for (size_t i = 0; i < N; i++) h[i] = (uint16_t)u[i], w[i] = (int32_t)u[i] - 30000, l[i] = w[i];
            ml_col_u32(&a, &am, u, N);
            ml_col_u16_take(&b, &bm, h, N);
            ml_buf_puts(&am, ","); ml_buf_puts(&bm, ",");
            ml_col_i64(&a, &am, l, N, 0);
            ml_col_i32_take(&b, &bm, w, N);
            CHECK_EQ_STR(bm.p, am.p);
            CHECK(a.html.len == b.html.len && memcmp(a.html.p, b.html.p, a.html.len) == 0);
            ml_blobs_free(&a); ml_blobs_free(&b);
            ml_buf_free(&am); ml_buf_free(&bm);
            free(l);
        }
        free(u);
    }
}

/* report_lz.c's deflate inflates (zlib's raw inflate) to its input: runs
 * longer than a match, a pattern at the window's edge, bytes of Fibonacci
 * frequencies in random order (a Huffman tree deeper than 15 bits, limited),
 * a tail shorter than a match; one state for them all (its table's entries
 * of earlier inputs must not be taken). */
TEST(lz_deflate_inflates_to_its_input)
{
    enum { N = 200000 };
    unsigned char *in = malloc(N), *z = malloc(N + 1024), *back = malloc(N + 1);
    ml_lz_state st = {0};
    uint64_t x = 88172645463325252ULL;
    for (int c = 0; c < 6; c++) {
        size_t n = 0;
        if (c == 0) for (; n < 5000; n++) in[n] = n < 4000 ? 0 : (unsigned char)(n / 300); /* runs */
        if (c == 1) for (; n < 70000; n++) in[n] = n < 32768 ? (unsigned char)(x ^= x << 13, x ^= x >> 7, x ^= x << 17) : in[n - 32768];
        if (c == 2) { /* 1, 1, 2, 3, 5, ... of bytes 0..24, shuffled */
            uint32_t f0 = 1, f1 = 1;
            for (int b = 0; b < 25 && n < N; b++) {
                for (uint32_t k = 0; k < f0 && n < N; k++) in[n++] = (unsigned char)b;
                uint32_t f2 = f0 + f1;
                f0 = f1, f1 = f2;
            }
            for (size_t i = n; i-- > 1;) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                size_t j = (size_t)(x % (i + 1));
                unsigned char t = in[i];
                in[i] = in[j], in[j] = t;
            }
        }
        if (c == 3) for (; n < 259; n++) in[n] = (unsigned char)(n % 7 == 0); /* a short tail */
        if (c == 4) for (; n < 3; n++) in[n] = 9;
        if (c == 5) for (; n < 100000; n++) in[n] = (unsigned char)(n % 1000 < 10 ? n : 0); /* as c 0: the state's table is old */
        size_t zn = ml_lz_deflate(&st, z, N + 1024, in, n);
        CHECK(zn > 0);
        z_stream s = {0};
        CHECK_EQ_I64(inflateInit2(&s, -15), Z_OK);
        s.next_in = z, s.avail_in = (uInt)zn, s.next_out = back, s.avail_out = N + 1;
        CHECK_EQ_I64(inflate(&s, Z_FINISH), Z_STREAM_END);
        CHECK_EQ_I64((int64_t)s.total_out, (int64_t)n);
        CHECK(!memcmp(back, in, n));
        inflateEnd(&s);
        if (c == 0 || c == 5) CHECK(zn < n / 20); /* runs: a few bytes */
        CHECK_EQ_I64(ml_lz_deflate(&st, z, 2, in, n), 0); /* no room: 0 */
    }
    ml_lz_state_free(&st);
    free(in), free(z), free(back);
}

/* n values whose byte 0 is random (xorshift), byte 1 i / step and bytes 2 and
 * 3 zero (zero planes 12), encoded: the random plane in stored blocks of at
 * most 65,535 bytes first (the block headers checked, and its bytes in the
 * first), the slow one deflated after them, one zlib stream (its Adler-32
 * right) that inflates to the two planes.  Their planes into planes (2 * n);
 * the blob's bytes into z. */
static void stored_then_deflated(size_t n, size_t step, uint32_t *v, unsigned char *planes, unsigned char *z)
{
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        v[i] = (uint32_t)(x & 0xff) | (uint32_t)(i / step) << 8;
        planes[i] = (unsigned char)v[i], planes[n + i] = (unsigned char)(v[i] >> 8);
    }
    ml_blob_scratch s = {0};
    ml_buf a = {0};
    CHECK_EQ_I64(ml_blob_encode(&s, &a, 1, 0, 4, 12, v, n * sizeof *v), 1);
    size_t zn = blob_bytes(a.p, z), at = 2;
    CHECK(zn > 2 + 5 + n && zn < 2 * n - 2 * n / 10);
    for (size_t left = n; left; at += 5) { /* each stored block: BFINAL 0, BTYPE 00, LEN, NLEN */
        size_t len = left < 65535 ? left : 65535;
        CHECK_EQ_I64(z[at], 0);
        CHECK_EQ_I64(z[at + 1] | z[at + 2] << 8, len);
        CHECK_EQ_I64((z[at + 3] | z[at + 4] << 8) ^ 0xffff, len);
        if (z[at] || (size_t)(z[at + 1] | z[at + 2] << 8) != len) break;
        at += len, left -= len;
    }
    CHECK(!memcmp(z + 7, planes, n < 65535 ? n : 65535));
    unsigned char *back = malloc(2 * n);
    uLongf bn = 2 * n;
    CHECK_EQ_I64(uncompress(back, &bn, z, zn), Z_OK);
    CHECK_EQ_I64(bn, 2 * n);
    CHECK(!memcmp(back, planes, 2 * n));
    free(back);
    ml_blob_scratch_free(&s);
    ml_buf_free(&a);
}

TEST(random_leading_planes_are_stored_not_deflated)
{
    enum { N = 8192, LONG = 140000 }; /* LONG: more than one stored block (65,535 bytes) */
    uint32_t *v = malloc(LONG * sizeof *v);
    unsigned char *planes = malloc(2 * LONG), *z = malloc(4 * LONG), *back = malloc(2 * N);
    stored_then_deflated(LONG, 1000, v, planes, z);
    stored_then_deflated(N, 300, v, planes, z);
    ml_blob_scratch s = {0};
    ml_buf b = {0}, c = {0};
    /* only the random plane: kept as it is, not deflated */
    CHECK_EQ_I64(ml_blob_encode(&s, &b, 2, 0, 1, 0, planes, N), 0);
    CHECK_EQ_I64(blob_bytes(b.p, z), N);
    CHECK(!memcmp(z, planes, N));
    /* bytes as varied but repeating (1 KB of them again and again): deflated whole */
    for (size_t i = 1024; i < N; i++) planes[i] = planes[i - 1024];
    CHECK_EQ_I64(ml_blob_encode(&s, &c, 3, 0, 1, 0, planes, 2 * N), 1);
    size_t zn = blob_bytes(c.p, z);
    CHECK(zn < N / 2);
    CHECK(z[2] & 6);                                         /* a Huffman block first */
    uLongf bn = 2 * N;
    CHECK_EQ_I64(uncompress(back, &bn, z, zn), Z_OK);
    CHECK(bn == 2 * N && !memcmp(back, planes, 2 * N));
    ml_blob_scratch_free(&s);
    ml_buf_free(&b), ml_buf_free(&c);
    free(v), free(planes), free(z), free(back);
}

/* A curve that changes at a few points: its deltas as runs ("r", web/DATA.md),
 * the runs' values then their lengths, small enough to store as they are;
 * a long one shuffled and deflated, read back (inflated, planes undone, runs
 * expanded, deltas summed) to its values; one whose runs would take more
 * than half its room kept as it is. */
TEST(columns_of_few_changes_are_stored_as_runs)
{
    ml_blobs bl = {0};
    ml_buf meta = {0};
    enum { N = 1000, LONG = 30000 };
    int64_t v[N];
    for (size_t i = 0; i < N; i++) v[i] = i >= 600 && i < 800 ? 4608 : 4096;
    ml_col_i64(&bl, &meta, v, N, 1);
    CHECK_EQ_STR(meta.p, "{\"b\":0,\"dt\":\"i32\",\"n\":1000,\"d\":1,\"r\":5,\"o\":4096}");
    unsigned char bytes[64];
    CHECK_EQ_I64(blob_bytes(bl.html.p, bytes), 40);
    const int32_t want[10] = {0, 512, 0, -512, 0, /* lengths */ 600, 1, 199, 1, 199};
    int32_t got[10];
    memcpy(got, bytes, sizeof got);
    for (int k = 0; k < 10; k++) CHECK_EQ_I64(got[k], want[k]);

    /* 30,000 points, a step of 4096 up or down every 600 (49 steps): 99 runs
     * (0s, a step, 0s, ...), 198 values stored */
    int64_t *l = malloc(LONG * sizeof *l);
    for (size_t i = 0; i < LONG; i++) l[i] = (int64_t)1 << 34 | (int64_t)(i / 600 % 2) * 4096;
    ml_blobs lb = {0};
    meta.len = 0;
    ml_col_i64(&lb, &meta, l, LONG, 1);
    CHECK_CONTAINS(meta.p, "\"n\":30000,\"d\":1,\"r\":99,\"s\":1,");
    unsigned char *z = malloc(4 * LONG), *planes = malloc(4 * LONG);
    size_t zn = blob_bytes(lb.html.p, z);
    uLongf pn = 4 * LONG;
    const char *zps = strstr(meta.p, "\"zp\":");
    unsigned zp = zps ? (unsigned)strtoul(zps + 5, NULL, 10) : 0;
    if (strstr(meta.p, "\"z\":1")) CHECK_EQ_I64(uncompress(planes, &pn, z, zn), Z_OK);
    else memcpy(planes, z, zn), pn = zn;
    enum { R = 99 };
    int32_t stored[2 * R] = {0};
    size_t plane = 0;
    for (int k = 0; k < 4; k++) {
        if (zp >> k & 1) continue;
        for (size_t i = 0; i < 2 * R; i++) stored[i] |= (int32_t)((uint32_t)planes[plane * 2 * R + i] << (8 * k));
        plane++;
    }
    CHECK_EQ_I64((int64_t)pn, (int64_t)plane * 2 * R);
    int64_t acc = (int64_t)1 << 34;
    size_t at = 0, bad = 0;
    for (size_t r = 0; r < R; r++)
        for (int32_t k = 0; k < stored[R + r] && at < LONG; k++, at++) {
            acc += stored[r];
            bad += at >= LONG || acc != l[at];
        }
    int64_t total = 0;
    for (size_t r = 0; r < R; r++) total += stored[R + r];
    CHECK_EQ_I64(total, LONG);
    CHECK_EQ_I64((int64_t)at, LONG);
    CHECK_EQ_I64((int64_t)bad, 0);

    /* a change at every third point: 667 runs of 1,000 values, kept as they are */
    for (size_t i = 0; i < N; i++) v[i] = (int64_t)(i / 3) * 10 + (i % 3 == 2);
    meta.len = 0;
    ml_col_i64(&bl, &meta, v, N, 1);
    CHECK(!strstr(meta.p, "\"r\":"));
    CHECK_CONTAINS(meta.p, "\"n\":1000,\"d\":1,");
    free(l), free(z), free(planes);
    ml_buf_free(&meta);
    ml_blobs_free(&bl);
    ml_blobs_free(&lb);
}

/* Columns of every kind, small and large, compressible and not, one
 * descriptor copied as the category bands' times are; into meta and bl. */
static void some_columns(ml_blobs *bl, ml_buf *meta)
{
    enum { N = 5000 };
    int64_t *t = malloc(N * sizeof *t), *big = malloc(N * sizeof *big);
    uint32_t *u = malloc(N * sizeof *u), *w = malloc(N * sizeof *w);
    uint8_t *b = malloc(N);
    int64_t *steps = malloc(N * sizeof *steps);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < N; i++) {
        steps[i] = (int64_t)(i / 100 % 4) << 20;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17; /* xorshift: bytes that do not deflate */
        t[i] = 1000000 + (int64_t)i * 7 + (int64_t)(i % 3);
        big[i] = (int64_t)(x >> 11);
        u[i] = (uint32_t)(i % 50);
        w[i] = (uint32_t)x;
        b[i] = (uint8_t)(i & 1);
    }
    ml_buf tcol = {0};
    ml_col_i64(bl, &tcol, t, N, 1);
    for (int k = 0; k < 3; k++) {
        ml_buf_puts(meta, k ? ",{\"t\":" : "[{\"t\":");
        ml_buf_put(meta, tcol.p, tcol.len);
        ml_buf_puts(meta, ",\"v\":");
        ml_col_i64(bl, meta, big + k, N - (size_t)k, 0);
        ml_buf_puts(meta, ",\"u\":");
        ml_col_u32(bl, meta, u, N);
        ml_buf_puts(meta, ",\"w\":");
        ml_col_u32(bl, meta, w, N / (size_t)(k + 1));
        ml_buf_puts(meta, ",\"rows\":"); /* "dn" */
        ml_col_u32_nz_delta(bl, meta, u, N - (size_t)k);
        ml_buf_puts(meta, ",\"b\":");
        ml_col_u8(bl, meta, b, (size_t)k * 100); /* 0, 100 (kept raw: small), 200 bytes */
        ml_buf_puts(meta, ",\"small\":");
        ml_col_i64(bl, meta, t, 3, 1);
        ml_buf_puts(meta, ",\"steps\":"); /* runs ("r") */
        ml_col_i64(bl, meta, steps, N - (size_t)k * 1000, 1);
        ml_buf_puts(meta, "}");
    }
    ml_buf_puts(meta, "]");
    ml_buf_free(&tcol);
    free(t); free(big); free(u); free(w); free(b); free(steps);
}

TEST(columns_on_a_second_thread_are_the_serial_ones)
{
    ml_blobs s = {0};
    ml_buf sm = {0};
    some_columns(&s, &sm);
    CHECK_CONTAINS(sm.p, "\"z\":1");                 /* some deflate ... */
    CHECK_CONTAINS(sm.p, "\"dt\":\"u32\",\"n\":5000,\"s\":1}"); /* ... some do not */
    CHECK_CONTAINS(sm.p, "\"n\":5000,\"d\":1,\"r\":99,\"s\":1,");  /* runs, shuffled */
    /* The default queue, and one that holds one blob at a time (each push waits). */
    for (size_t max = 0; max < 2; max++) {
        ml_blobs a = { .max_pending = max };
        ml_buf am = {0};
        ml_buf_puts(&am, "x"); /* the meta need not start empty */
        ml_blobs_async(&a);
        CHECK(a.q != NULL);
        some_columns(&a, &am);
        ml_blobs_finish(&a, &am);
        CHECK(a.q == NULL);
        CHECK_EQ_I64(a.count, s.count);
        CHECK_EQ_I64(am.len, sm.len + 1);
        CHECK(am.len == sm.len + 1 && !memcmp(am.p + 1, sm.p, sm.len));
        CHECK_EQ_I64(a.html.len, s.html.len);
        CHECK(a.html.len == s.html.len && !memcmp(a.html.p, s.html.p, s.html.len));
        ml_buf_free(&am);
        ml_blobs_free(&a);
    }
    /* MEMLENS_ONE_THREAD keeps it serial; freeing a running queue waits for it. */
    setenv("MEMLENS_ONE_THREAD", "1", 1);
    ml_blobs one = {0};
    ml_blobs_async(&one);
    CHECK(one.q == NULL);
    unsetenv("MEMLENS_ONE_THREAD");
    ml_blobs run = {0};
    ml_buf rm = {0};
    ml_blobs_async(&run);
    some_columns(&run, &rm);
    ml_blobs_free(&run);
    ml_buf_free(&rm);
    ml_buf_free(&sm);
    ml_blobs_free(&s);
}

/* cuda:0: 1 GiB before the trace (recorded total), then two allocations. */
static ml_profile *tiny(void)
{
    ml_profile *p = ml_profile_new("tiny.json", "kineto");
    p->time_is_absolute = true;
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
    const int64_t T = 1700000000000000000LL, G = 1LL << 30;
    ml_str lin = ml_intern_cstr(p->strings, "aten::linear"), relu = ml_intern_cstr(p->strings, "aten::relu");
    ml_alloc_row r = { .t_alloc = T + 100, .t_free = T + 500, .t_free_req = T + 500, .size = 256 << 20,
                       .addr = 0x7f0000000000ULL, .ev_alloc = ML_NONE32, .ev_free = ML_NONE32,
                       .thread = ML_NONE32, .device = d, .op = lin, .op_top = lin };
    ml_alloc_push(p, &r);
    r.t_alloc = T + 200; r.t_free = T + 300; r.size = 64 << 20; r.addr += 1 << 28; r.op = r.op_top = relu;
    ml_alloc_push(p, &r);
    ml_series *s = ml_series_get(p, d, ML_SERIES_ALLOCATED, 0, 0);
    int64_t pts[][2] = {{T + 100, G + (256 << 20)}, {T + 200, G + (320 << 20)}, {T + 300, G + (256 << 20)}, {T + 500, G}};
    for (size_t i = 0; i < 4; i++) ml_series_push(s, pts[i][0], pts[i][1]);
    ml_profile_finish(p);
    return p;
}

TEST(tiny_profile_data)
{
    ml_profiles ps = {0};
    VEC_PUSH(&ps.items, tiny());
    ml_buf meta = {0};
    ml_blobs bl = {0};
    ml_err e = {{0}};
    CHECK_EQ_I64(ml_report_data(&ps, NULL, &meta, &bl, &e), 0);
    CHECK_CONTAINS(meta.p, "\"origin_ns\":\"1700000000000000100\"");
    CHECK_CONTAINS(meta.p, "\"id\":\"cuda:0\"");
    /* The peak: 1 GiB + 320 MiB at +200 ns (relative to the origin: 100). */
    CHECK_CONTAINS(meta.p, "\"peak\":{\"curve\":0,\"v\":1409286144,\"t\":100");
    CHECK_CONTAINS(meta.p, "\"by_op\":[[\"(allocated before trace)\",1073741824,0],[\"aten::linear\",268435456,1],[\"aten::relu\",67108864,1]]");
    CHECK_CONTAINS(meta.p, "\"allocs\":{\"n\":2,\"total\":2,\"summarised\":0");
    CHECK_CONTAINS(meta.p, "[\"aten::relu\",null,1,67108864,0,67108864]"); /* no CPU operators: calls unknown */
    /* The category bands change exactly when the recorded curve does: they
     * share its time column (blob 0, the first written) instead of a copy. */
    CHECK_CONTAINS(meta.p, "\"curves\":[{\"kind\":\"allocated\",\"group\":\"overall\"");
    const char *first_t = strstr(meta.p, "\"t\":{\"b\":");
    const char *band = strstr(meta.p, "\"group\":\"category\"");
    CHECK(first_t && band);
    if (first_t && band) {
        CHECK_EQ_I64(strncmp(first_t, "\"t\":{\"b\":0,", 11), 0);
        CHECK_CONTAINS(band, "\"t\":{\"b\":0,\"dt\":\"i32\",\"n\":4,");
    }

    /* A budget of one keeps the allocation live at the peak that is largest, and says so. */
    ml_buf m2 = {0};
    ml_blobs b2 = {0};
    ml_report_opts o = { .max_allocs = 1 };
    CHECK_EQ_I64(ml_report_data(&ps, &o, &m2, &b2, &e), 0);
    CHECK_CONTAINS(m2.p, "\"allocs\":{\"n\":1,\"total\":2,\"summarised\":1,\"summarised_bytes\":67108864");
    ml_buf_free(&m2);
    ml_blobs_free(&b2);

    /* The page is written whole or not at all. */
    char dir[] = "/tmp/ml_report_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char out[128];
    snprintf(out, sizeof out, "%s/r.html", dir);
    CHECK_EQ_I64(ml_report_write(&ps, NULL, out, &e), 0);
    FILE *f = fopen(out, "r");
    CHECK(f != NULL);
    if (f) {
        char head[64] = {0};
        CHECK(fread(head, 1, sizeof head - 1, f) > 0);
        CHECK_CONTAINS(head, "<!doctype html>");
        fclose(f);
    }
    char bad[160];
    snprintf(bad, sizeof bad, "%s/no/such/dir/r.html", dir);
    CHECK_EQ_I64(ml_report_write(&ps, NULL, bad, &e), -1);
    CHECK_CONTAINS(e.msg, "cannot create");
    unlink(out);
    rmdir(dir);

    ml_buf_free(&meta);
    ml_blobs_free(&bl);
    ml_profiles_free(&ps);
}

TEST(no_profiles_is_an_error)
{
    ml_profiles ps = {0};
    ml_buf meta = {0};
    ml_blobs bl = {0};
    ml_err e = {{0}};
    CHECK_EQ_I64(ml_report_data(&ps, NULL, &meta, &bl, &e), -1);
    CHECK_CONTAINS(e.msg, "no profile");
}

/* The report data of one profile with columns kept raw (capture mode). */
static void report_of(ml_profile *p, ml_buf *meta, ml_blobs *bl)
{
    bl->capture = 1;
    ml_report_rank(p, ml_profile_first_time(p), SIZE_MAX, 0, meta, bl);
    ml_buf_puts(meta, ""); /* NUL-terminated */
}

/* The int64 column `col` of the first object after `after` in meta (capture mode). */
static const int64_t *raw_col(const ml_buf *meta, const ml_blobs *bl, const char *after, const char *col, size_t *n)
{
    const char *a = strstr(meta->p, after);
    const char *c = a ? strstr(a, col) : NULL;
    unsigned b;
    *n = 0;
    if (!c || sscanf(c + strlen(col), "{\"b\":%u", &b) != 1 || b >= bl->raw.len || bl->raw.v[b].dt != 'i') return NULL;
    *n = bl->raw.v[b].n;
    return bl->raw.v[b].v;
}

TEST(replayed_curve_starts_at_the_devices_first_event)
{
    /* An allocator snapshot's shape: a segment is reserved at T, the first
     * block allocated at T+100 and freed at T+200; no recorded totals. */
    ml_profile *p = ml_profile_new("snap.pickle", "torch-snapshot");
    p->caps.allocator_state = p->caps.memory_record = p->caps.memory_first = true; /* as the importer sets them */
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
    const int64_t T = 1700000000000000000LL;
    ml_event ev = { .ts = T, .size = 2 << 20, .thread = ML_NONE32, .device = d, .kind = ML_EV_SEGMENT_ALLOC };
    ml_event_push(p, &ev);
    ev.ts = T + 100; ev.size = 1 << 20; ev.kind = ML_EV_ALLOC;
    ml_event_push(p, &ev);
    ev.ts = T + 200; ev.kind = ML_EV_FREE;
    ml_event_push(p, &ev);
    ml_profile_finish(p);
    ml_curve c;
    CHECK(ml_curve_get(p, d, ML_SERIES_ALLOCATED, &c) && c.replayed);
    CHECK_EQ_I64(c.n, 3);
    if (c.n == 3) {
        CHECK_EQ_I64(c.ts[0], T);
        CHECK_EQ_I64(c.value[0], 0);
        CHECK_EQ_I64(c.ts[1], T + 100);
        CHECK_EQ_I64(c.value[1], 1 << 20);
    }
    /* the summary's walk finds the same peak, and the span from T */
    ml_peak pk;
    int64_t span[2];
    bool replayed;
    CHECK(ml_curve_find_peak(p, d, ML_SERIES_ALLOCATED, &pk, span, &replayed) && replayed);
    CHECK_EQ_I64(pk.value, 1 << 20);
    CHECK_EQ_I64(pk.at.ts, T + 100);
    CHECK_EQ_I64(pk.value, ml_curve_peak(&c).value);
    CHECK_EQ_I64(span[0], T);
    ml_curve_free(&c);
    /* the device is shown even though nothing matches (no addresses, no allocations) */
    ml_buf m = {0};
    ml_blobs bl = {0};
    report_of(p, &m, &bl);
    CHECK_CONTAINS(m.p, "\"devices\":[{\"id\":\"cuda:0\"");
    CHECK_CONTAINS(m.p, "\"label\":\"allocated (replayed from events)\"");
    ml_buf_free(&m);
    ml_blobs_free(&bl);
    ml_profile_free(p);
}

TEST(category_base_follows_the_recorded_curve)
{
    /* A recorded allocated curve that holds more than the one allocation
     * the input lists (Ascend's operator_memory): 1 GiB, then 1.5 GiB. */
    ml_profile *p = ml_profile_new("t.json", "kineto");
    p->time_is_absolute = true;
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
    const int64_t T = 1700000000000000000LL, G = 1LL << 30, M = 64LL << 20;
    ml_str mm = ml_intern_cstr(p->strings, "aten::mm");
    ml_alloc_row r = { .t_alloc = T + 100, .t_free = T + 300, .t_free_req = T + 300, .size = M, .addr = 0x1000,
                       .ev_alloc = ML_NONE32, .ev_free = ML_NONE32, .thread = ML_NONE32, .device = d, .op = mm, .op_top = mm };
    ml_alloc_push(p, &r);
    ml_series *s = ml_series_get(p, d, ML_SERIES_ALLOCATED, 0, 0);
    int64_t pts[][2] = {{T + 100, G + M}, {T + 200, G + G / 2 + M}, {T + 300, G + G / 2}, {T + 400, G}};
    for (size_t i = 0; i < 4; i++) ml_series_push(s, pts[i][0], pts[i][1]);
    ml_profile_finish(p);
    ml_buf m = {0};
    ml_blobs bl = {0};
    report_of(p, &m, &bl);
    size_t n, nt;
    const int64_t *base = raw_col(&m, &bl, "{\"cat\":-1,", "\"v\":", &n);
    const int64_t *t = raw_col(&m, &bl, "{\"cat\":-1,", "\"t\":", &nt);
    CHECK(base && t && n == 4 && nt == 4);
    if (base && t && n == 4 && nt == 4) {
        int64_t want_t[4] = {0, 100, 200, 300}, want[4] = {G, G + G / 2, G + G / 2, G};
        for (size_t i = 0; i < 4; i++) {
            CHECK_EQ_I64(t[i], want_t[i]);
            CHECK_EQ_I64(base[i], want[i]);
        }
    }
    /* the allocation's own band holds only it, not the gap */
    CHECK(!strstr(m.p, "\"label\":\"PARAMETER_OR_STATE\""));
    ml_buf_free(&m);
    ml_blobs_free(&bl);
    ml_profile_free(p);
}

TEST(curve_labels)
{
    char b[64];
    ml_report_curve_label(b, sizeof b, true, "reserved", NULL, NULL);
    CHECK_EQ_STR(b, "Operator Reserved");
    ml_report_curve_label(b, sizeof b, true, "app reserved", NULL, NULL);
    CHECK_EQ_STR(b, "APP Reserved");
    ml_report_curve_label(b, sizeof b, true, "active", "GE", NULL);
    CHECK_EQ_STR(b, "GE Activated");
    ml_report_curve_label(b, sizeof b, true, "reserved", NULL, "904703504");
    CHECK_EQ_STR(b, "Reserved of 904703504");
    /* other inputs keep memlens's own names */
    ml_report_curve_label(b, sizeof b, false, "allocated", NULL, NULL);
    CHECK_EQ_STR(b, "allocated");
    ml_report_curve_label(b, sizeof b, false, "active", NULL, "7");
    CHECK_EQ_STR(b, "stream 7 active");
}

TEST(component_and_stream_curves)
{
    ml_profile *p = ml_profile_new("rank0_ascend_pt", "ascend-text");
    ml_ascend_caps(p); /* as every Ascend importer does */
    uint16_t d = ml_device_get(p, ML_DEV_NPU, 0);
    ml_str head = ml_intern_cstr(p->strings, "PTA+GE"), st = ml_intern_cstr(p->strings, "897357296");
    const int64_t T = 1700000000000000000LL;
    ml_series_push(ml_series_get(p, d, ML_SERIES_ALLOCATED, head, 0), T, 100);
    ml_series_push(ml_series_get(p, d, ML_SERIES_ALLOCATED, head, st), T, 100);
    ml_series_push(ml_series_get(p, d, ML_SERIES_ALLOCATED, 0, 0), T, 100);
    ml_series_push(ml_series_get(p, d, ML_SERIES_ACTIVE, head, st), T, 90);
    ml_series_push(ml_series_get(p, d, ML_SERIES_ACTIVE, head, 0), T, 90);
    ml_series_push(ml_series_get(p, d, ML_SERIES_ACTIVE, 0, 0), T, 90);
    ml_series_push(ml_series_get(p, d, ML_SERIES_APP_RESERVED, 0, 0), T, 300);
    ml_series_push(ml_series_get(p, d, ML_SERIES_OTHER, ml_intern_cstr(p->strings, "SLOG"), 0), T, 0);
    /* eight modules over zero: six drawn, the two smallest summed */
    for (int k = 1; k <= 8; k++) {
        char name[8];
        snprintf(name, sizeof name, "M%d", k);
        ml_series *m = ml_series_get(p, d, ML_SERIES_OTHER, ml_intern_cstr(p->strings, name), 0);
        ml_series_push(m, T + k, 1000 - k);
        ml_series_push(m, T + 20, 10 * (9 - k));
    }
    ml_profile_finish(p);
    ml_buf m = {0};
    ml_blobs bl = {0};
    report_of(p, &m, &bl);
    /* MindStudio Insight's names; a stream as the profiler writes it (its "Stream Ptr"), active kept per stream */
    CHECK_CONTAINS(m.p, "\"kind\":\"allocated\",\"group\":\"overall\",\"label\":\"Operator Allocated\"");
    CHECK_CONTAINS(m.p, "\"kind\":\"active\",\"group\":\"overall\",\"label\":\"Operator Activated\"");
    CHECK_CONTAINS(m.p, "\"kind\":\"app reserved\",\"group\":\"overall\",\"label\":\"APP Reserved\"");
    CHECK_CONTAINS(m.p, "\"group\":\"stream\",\"label\":\"Allocated of 897357296\",\"of\":\"897357296\"");
    CHECK_CONTAINS(m.p, "\"kind\":\"active\",\"group\":\"stream\",\"label\":\"Activated of 897357296\",\"of\":\"897357296\"");
    CHECK_CONTAINS(m.p, "\"group\":\"component\",\"label\":\"PTA+GE Allocated\",\"of\":\"PTA+GE\"");
    CHECK_CONTAINS(m.p, "\"group\":\"component\",\"label\":\"PTA+GE Activated\",\"of\":\"PTA+GE\"");
    CHECK_CONTAINS(m.p, "\"label\":\"M6 module\"");
    CHECK(!strstr(m.p, "\"label\":\"M7 module\"") && !strstr(m.p, "SLOG"));
    /* what the page decides its views from (web/DATA.md caps), after the format's label */
    CHECK_CONTAINS(m.p, "\"format\":\"ascend-text\",\"caps\":{\"device\":\"npu\",\"device_word\":\"NPU\","
                        "\"insight_names\":true,\"static_graph\":false,\"allocator_state\":false,"
                        "\"memory_record\":false,\"memory_first\":true},\"host\":");
    size_t n;
    const int64_t *v = raw_col(&m, &bl, "\"label\":\"2 other modules\"", "\"v\":", &n);
    CHECK(v && n == 3);  /* M7 and M8 summed on the union of their times T+7, T+8, T+20 */
    if (v && n == 3) {
        CHECK_EQ_I64(v[0], 993);
        CHECK_EQ_I64(v[1], 993 + 992);
        CHECK_EQ_I64(v[2], 20 + 10);
    }
    ml_buf_free(&m);
    ml_blobs_free(&bl);
    ml_profile_free(p);
}

TEST(without_operators_allocations_group_by_first_user_frame)
{
    ml_profile *p = ml_profile_new("snap.pickle", "torch-snapshot");
    p->caps.allocator_state = p->caps.memory_record = p->caps.memory_first = true; /* as the importer sets them */
    p->time_is_absolute = true;
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
    uint32_t f[3] = {
        ml_frame_get(p, ml_intern_cstr(p->strings, "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc"), 0, -1),
        ml_frame_get(p, ml_intern_cstr(p->strings, "_wrapped_call_impl"), ml_intern_cstr(p->strings, "/x/site-packages/torch/nn/modules/module.py"), 1739),
        ml_frame_get(p, ml_intern_cstr(p->strings, "forward"), ml_intern_cstr(p->strings, "/home/u/model.py"), 12),
    };
    uint32_t stack = ml_stack_get(p, f, 3);
    const int64_t T = 1700000000000000000LL;
    ml_alloc_row r = { .t_alloc = T, .t_free = T + 10, .t_free_req = T + 10, .size = 512, .addr = 0x1000,
                       .ev_alloc = ML_NONE32, .ev_free = ML_NONE32, .thread = ML_NONE32, .device = d, .stack = stack };
    ml_alloc_push(p, &r);
    ml_profile_finish(p);
    ml_buf m = {0};
    ml_blobs bl = {0};
    report_of(p, &m, &bl);
    CHECK_CONTAINS(m.p, "\"group_by\":\"frame\",\"groups\":[\"(allocated before trace)\",\"(no operator)\",\"forward (/home/u/model.py:12)\"]");
    CHECK_CONTAINS(m.p, "\"has\":{\"op\":false,\"stream\":false,\"addr\":true}");
    CHECK_CONTAINS(m.p, "[\"forward (/home/u/model.py:12)\",null,1,512,0,0]");
    ml_buf_free(&m);
    ml_blobs_free(&bl);
    ml_profile_free(p);
}

/* The summary's replayed peak of device d (ml_curve_find_peak, and its
 * span), checked against the peak of the one-walk curve (ml_curve_get). */
static ml_peak peak_as_the_walk(const ml_profile *p, uint16_t d, int64_t span[2])
{
    ml_curve cv;
    ml_peak pk = {0}, want;
    bool replayed;
    CHECK(ml_curve_get(p, d, ML_SERIES_ALLOCATED, &cv) && cv.replayed);
    want = ml_curve_peak(&cv);
    CHECK(ml_curve_find_peak(p, d, ML_SERIES_ALLOCATED, &pk, span, &replayed) && replayed);
    CHECK_EQ_I64(pk.value, want.value);
    CHECK_EQ_I64(pk.at.ts, want.at.ts);
    CHECK_EQ_I64(pk.at.event, want.at.event);
    CHECK_EQ_I64(pk.point, want.point);
    ml_curve_free(&cv);
    return pk;
}

TEST(replayed_peak_in_two_halves_is_the_walk_of_the_whole)
{
    /* 1.2M events (summary replays those of 1M or more in two halves, one
     * per core): a segment, then allocs and frees of 1000 bytes in turn, with
     * one spike in each half; the first highest level is the peak, whichever
     * half it lies in and when both spikes are as high.  The curve of the
     * whole (ml_curve_get, one walk) says where. */
    const int64_t spikes[3][2] = {{5000, 7000}, {5000, 5000}, {7000, 5000}};
    const size_t n = 1200000, at1 = 100000, at2 = 900000;
    for (int c = 0; c < 3; c++) {
        ml_profile *p = ml_profile_new("t.json", "kineto");
        uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
        ml_event ev = {.ts = 1000, .size = 1 << 20, .thread = ML_NONE32, .device = d, .kind = ML_EV_SEGMENT_ALLOC};
        ml_event_push(p, &ev);
        for (size_t i = 1; i < n; i += 2) {
            int64_t size = i == at1 + 1 ? spikes[c][0] : i == at2 + 1 ? spikes[c][1] : 1000;
            ev = (ml_event){.ts = 1000 + (int64_t)i, .size = size, .thread = ML_NONE32, .device = d, .kind = ML_EV_ALLOC};
            ml_event_push(p, &ev);
            ev.ts++;
            ev.kind = ML_EV_FREE;
            ml_event_push(p, &ev);
        }
        ml_profile_finish(p);
        int64_t span[2];
        ml_peak pk = peak_as_the_walk(p, d, span);
        CHECK_EQ_I64(pk.at.event, c == 0 ? at2 + 1 : at1 + 1);
        CHECK_EQ_I64(pk.value, c == 0 ? 7000 : c == 1 ? 5000 : 7000);
        CHECK_EQ_I64(span[0], 1000);
        CHECK_EQ_I64(span[1], 1000 + (int64_t)n); /* the last free */
        ml_profile_free(p);
    }
}

TEST(replayed_peak_past_2_62_saturates_as_the_walk_of_the_whole)
{
    /* Five allocs of 2^61 bytes, never freed: the level passes 2^63 and
     * saturates; the summary's replay walks again saturating, and finds the
     * peak the one-walk curve does (the first event at the saturated level). */
    ml_profile *p = ml_profile_new("t.json", "kineto");
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
    for (int i = 0; i < 5; i++) {
        ml_event ev = {.ts = 1000 + i, .size = (int64_t)1 << 61, .thread = ML_NONE32, .device = d, .kind = ML_EV_ALLOC};
        ml_event_push(p, &ev);
    }
    ml_profile_finish(p);
    int64_t span[2];
    ml_peak pk = peak_as_the_walk(p, d, span);
    CHECK_EQ_I64(pk.value, INT64_MAX);
    CHECK_EQ_I64(span[0], 1000);
    CHECK_EQ_I64(span[1], 1004);
    ml_profile_free(p);
}

TEST(a_peak_found_again_is_the_same_and_follows_new_events)
{
    /* Through the caller's memo (curve.h), the peak of each (device, kind)
     * is found once: asked again, the same answer from the memo's row, for
     * each device; another profile starts the memo afresh, and without a
     * memo a changed profile's peak is found anew.
     * Device 0: 300 then 100 allocated (peak 300 at T+1); device 1: 50. */
    ml_profile *p = ml_profile_new("t.json", "kineto");
    uint16_t d0 = ml_device_get(p, ML_DEV_CUDA, 0), d1 = ml_device_get(p, ML_DEV_CUDA, 1);
    const int64_t T = 1000;
    ml_event ev = {.ts = T + 1, .size = 300, .thread = ML_NONE32, .device = d0, .kind = ML_EV_ALLOC};
    ml_event_push(p, &ev);
    ev = (ml_event){.ts = T + 2, .size = 200, .thread = ML_NONE32, .device = d0, .kind = ML_EV_FREE};
    ml_event_push(p, &ev);
    ev = (ml_event){.ts = T + 3, .size = 50, .thread = ML_NONE32, .device = d1, .kind = ML_EV_ALLOC};
    ml_event_push(p, &ev);
    ml_profile_finish(p);
    ml_peak_memo memo = {0};
    for (int round = 0; round < 2; round++) {
        ml_peak pk;
        int64_t span[2];
        bool replayed;
        CHECK(ml_curve_find_peak_memo(&memo, p, d0, ML_SERIES_ALLOCATED, &pk, span, &replayed) && replayed);
        CHECK_EQ_I64(pk.value, 300);
        CHECK_EQ_I64(pk.at.ts, T + 1);
        CHECK_EQ_I64(span[0], T + 1);
        CHECK_EQ_I64(span[1], T + 2);
        CHECK(ml_curve_find_peak_memo(&memo, p, d1, ML_SERIES_ALLOCATED, &pk, span, &replayed) && replayed);
        CHECK_EQ_I64(pk.value, 50);
        CHECK_EQ_I64(pk.at.ts, T + 3);
        CHECK(!ml_curve_find_peak_memo(&memo, p, d0, ML_SERIES_RESERVED, &pk, span, &replayed));
        /* three rows, in the order asked: the second round reads them */
        CHECK(memo.of == p && memo.row[0].used && memo.row[1].used && memo.row[2].used && !memo.row[3].used);
        CHECK_EQ_I64(memo.row[0].pk.value, 300);
        CHECK_EQ_I64(memo.row[1].device, d1);
        CHECK(!memo.row[2].ok);
    }
    /* a row's answer is what the memo gives back: planted, it is read */
    memo.row[1].pk.value = 51;
    ml_peak pk;
    int64_t span[2];
    bool replayed;
    CHECK(ml_curve_find_peak_memo(&memo, p, d1, ML_SERIES_ALLOCATED, &pk, span, &replayed));
    CHECK_EQ_I64(pk.value, 51);
    /* one more alloc on device 0 (a later event): 100 + 400 = 500 at T+4,
     * found without a memo, and through one given another profile first */
    ev = (ml_event){.ts = T + 4, .size = 400, .thread = ML_NONE32, .device = d0, .kind = ML_EV_ALLOC};
    ml_event_push(p, &ev);
    CHECK(ml_curve_find_peak(p, d0, ML_SERIES_ALLOCATED, &pk, span, &replayed) && replayed);
    CHECK_EQ_I64(pk.value, 500);
    CHECK_EQ_I64(pk.at.ts, T + 4);
    CHECK_EQ_I64(span[1], T + 4);
    ml_profile *other = ml_profile_new("u.json", "kineto");
    ml_profile_finish(other);
    CHECK(!ml_curve_find_peak_memo(&memo, other, 0, ML_SERIES_ALLOCATED, &pk, span, &replayed));
    CHECK(memo.of == other && memo.row[0].used && !memo.row[1].used);
    CHECK(ml_curve_find_peak_memo(&memo, p, d0, ML_SERIES_ALLOCATED, &pk, span, &replayed));
    CHECK_EQ_I64(pk.value, 500);
    ml_profile_free(other);
    ml_profile_free(p);
}

int main(void)
{
    RUN(m4_pyramid_keeps_extremes);
    RUN(columns_pick_the_smallest_exact_form);
    RUN(blobs_hold_their_columns_byte_planes);
    RUN(random_leading_planes_are_stored_not_deflated);
    RUN(byte_planes_of_every_width_and_mask_are_the_bytes_in_order);
    RUN(columns_of_few_changes_are_stored_as_runs);
    RUN(wide_integers_and_growing_rows_have_forms_of_their_own);
    RUN(take_encoders_write_what_the_copying_ones_write);
    RUN(lz_deflate_inflates_to_its_input);
    RUN(columns_on_a_second_thread_are_the_serial_ones);
    RUN(tiny_profile_data);
    RUN(no_profiles_is_an_error);
    RUN(replayed_curve_starts_at_the_devices_first_event);
    RUN(replayed_peak_in_two_halves_is_the_walk_of_the_whole);
    RUN(replayed_peak_past_2_62_saturates_as_the_walk_of_the_whole);
    RUN(a_peak_found_again_is_the_same_and_follows_new_events);
    RUN(category_base_follows_the_recorded_curve);
    RUN(curve_labels);
    RUN(component_and_stream_curves);
    RUN(without_operators_allocations_group_by_first_user_frame);
    return check_report();
}
