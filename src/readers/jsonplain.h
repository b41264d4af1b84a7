/*
 * jsonplain.h — the tokenizer's second mode: JSON read straight from a
 * wholly buffered value, without tokens (jsonscan.c is the first: the pull
 * scanner).  An importer's fast path peeks at the scanner's buffer
 * (js_peek_value, js_peek_element), recognises the plain forms a profiler
 * writes (strings without escapes, -?digits[.digits] numbers, blanks between
 * members) with these helpers, and consumes what it read; anything else
 * (an escape, an unusual form, a value that runs past the buffer) makes a
 * helper return 0 and the caller read the value again with the scanner's
 * token calls, to the same effect.  Every helper agrees with the scanner on
 * what it accepts: the tables of number and blank bytes, the SWAR digit
 * decoding and the blank skipping are the scanner's own (jsonscan.c uses
 * them), and js_plain_skip_container() lives in jsonscan.c beside js_skip().
 *
 * The buffer contract (js_peek_value): p[n] is a NUL, and 16 bytes past it
 * (64 for the digit runs' 8-byte loads past any digit) may be read.
 * Header only: each helper must inline into its caller's loop.
 */
#ifndef ML_JSONPLAIN_H
#define ML_JSONPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "decimal.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The bytes that may go on a number as the scanner lexes it (digits, sign,
 * point, exponent, and the letters of NaN and Infinity), and the blanks. */
extern const unsigned char js_numch[256];
extern const unsigned char js_wsch[256];

/* The container at p[i] ('{' or '['), skipped as js_skip() does (brackets
 * must match, strings may hold escapes): the index after it, or 0
 * (jsonscan.c: 64 bytes at a time, AVX2 where the CPU has it). */
size_t js_plain_skip_container(const char *p, size_t i, size_t n);

/* SWAR over 8 bytes x (as loaded from memory): a mask that is 0 exactly
 * when all eight are ASCII digits (a byte is a digit when its high nibble
 * is 3, and still is 3 after adding 6; a carry out of a non-digit byte only
 * reaches the bytes after it), and the value of k leading digits moved to
 * the top bytes (zeros before them). */
static inline uint64_t jp_swar_nondigits(uint64_t x)
{
    return ((x & 0xF0F0F0F0F0F0F0F0ull) | (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ^
           0x3333333333333333ull;
}

static inline uint64_t jp_swar_value8(uint64_t x)
{
    x = x * 10 + (x >> 8);
    return (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
            (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
}

/* For x (8 bytes as loaded) and y = x - 0x3030303030303030: bit 7 of each
 * byte set where x is not a digit (below '0' borrows, above '9' carries into
 * bit 7), exact up to the first such byte (its borrow or carry reaches only
 * the bytes after it): its index is the count of leading digits.  Cheaper
 * than jp_swar_nondigits() where y is wanted for the value anyway. */
static inline uint64_t jp_swar_digit_stops(uint64_t x, uint64_t y)
{
    return (y | (x + 0x4646464646464646ull)) & 0x8080808080808080ull;
}

#ifdef __SSE2__
/* Bit k: whether byte k of the 16 at p is a blank (space, tab, CR, LF). */
static inline unsigned jp_ws_mask16(const char *p)
{
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, nl)),
                                                    _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, tab))));
}
#endif

/* Kineto indents every arg on its own line: runs of 5-12 blanks, skipped
 * 16 bytes at a time (p[n] is a NUL with 16 readable bytes past it). */
static inline size_t jp_ws(const char *p, size_t i)
{
    if (!js_wsch[(unsigned char)p[i]]) return i;
    if (!js_wsch[(unsigned char)p[i + 1]]) return i + 1;
#ifdef __SSE2__
    for (i += 2;; i += 16) {
        unsigned m = ~jp_ws_mask16(p + i) & 0xffffu;
        if (m) return i + (unsigned)__builtin_ctz(m);
    }
#else
    while (js_wsch[(unsigned char)p[i]]) i++;
    return i;
#endif
}

/* The first index >= j holding '"', '\\' or NUL (jp_string), or, with
 * brackets, also one of [ ] { } (jp_skip).  The buffer from
 * js_peek_value() ends in a NUL with 16 readable bytes past it. */
static inline size_t jp_find_stop(const char *p, size_t j, bool brackets)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), zero = _mm_setzero_si128();
    const __m128i fold = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    for (;; j += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + j));
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, zero));
        if (brackets) {
            __m128i f = _mm_or_si128(x, fold); /* '[' | 0x20 == '{', ']' | 0x20 == '}' */
            hit = _mm_or_si128(hit, _mm_or_si128(_mm_cmpeq_epi8(f, open), _mm_cmpeq_epi8(f, close)));
        } else {
            hit = _mm_or_si128(hit, _mm_cmpeq_epi8(x, bslash));
        }
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) return j + (unsigned)__builtin_ctz(m);
    }
#else
    for (;; j++) {
        char c = p[j];
        if (c == '"' || c == 0 || (brackets ? c == '[' || c == ']' || c == '{' || c == '}' : c == '\\')) return j;
    }
#endif
}

/* A string at p[i] == '"' without backslashes: the index after its closing
 * quote, or 0.  p[n] is the scanner's sentinel NUL. */
static inline size_t jp_string(const char *p, size_t i, size_t n)
{
    size_t j = jp_find_stop(p, i + 1, false);
    return j < n && p[j] == '"' ? j + 1 : 0;
}

/* The key of an object member at p[i] == '"' (a plain string), then its
 * colon: the key in *key, *kn, and the index of the value, or 0. */
static inline size_t jp_member(const char *p, size_t i, size_t n, const char **key, size_t *kn)
{
    if (p[i] != '"') return 0;
    size_t kend = jp_string(p, i, n);
    if (!kend) return 0;
    *key = p + i + 1;
    *kn = kend - i - 2;
    i = jp_ws(p, kend);
    if (i >= n || p[i] != ':') return 0;
    return jp_ws(p, i + 1);
}

/* The run of decimal digits at p (8 bytes at a time: p is followed by at
 * least 8 readable bytes past any digit, as the scanner's NUL and padding
 * ensure): its length, up to 24 (more are not looked at), and, when it is at
 * most 19, its value in *v. */
static inline unsigned jp_digit_run(const char *p, uint64_t *v)
{
    uint64_t total = 0;
    unsigned len = 0;
    for (int round = 0; round < 3; round++) {
        uint64_t x;
        memcpy(&x, p + len, 8);
        uint64_t other = jp_swar_nondigits(x);
        unsigned k = other ? (unsigned)__builtin_ctzll(other) / 8 : 8;
        if (k == 0) break;
        /* the k digits to the top bytes (zeros before them), then 8 digits to a number */
        x = jp_swar_value8((x - 0x3030303030303030ull) << (64 - 8 * k));
        static const uint64_t scale[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
        total = total * scale[k] + x;
        len += k;
        if (k < 8) break;
    }
    *v = total;
    return len;
}

/* The number of digits at p, up to 8 (jp_digit_run() without the value). */
static inline unsigned jp_digits8(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    uint64_t other = jp_swar_nondigits(x);
    return other ? (unsigned)__builtin_ctzll(other) / 8 : 8;
}

/* A number at p[i] as lex_number() takes it (a digit or '-' and a digit,
 * then the run of number bytes): the index after it, or 0 when that run
 * reaches n.  The digits before and after a point (all number bytes) are
 * passed 8 at a time, the rest (an exponent, NaN's letters) byte by byte;
 * an integer (most numbers: ids, streams) costs one look at the byte after
 * its digits.  The digit runs stop at p[n], the NUL, so each 8-byte load
 * starts at or before n (reading at most p[n + 7], inside the padding);
 * were p[n] a digit, a run that passed n would still give 0, as the byte
 * loop does. */
static inline size_t jp_number(const char *p, size_t i, size_t n)
{
    if (!((p[i] >= '0' && p[i] <= '9') || (p[i] == '-' && p[i + 1] >= '0' && p[i + 1] <= '9'))) return 0;
    i += (p[i] == '-');
    unsigned d;
    while ((d = jp_digits8(p + i)) == 8) i += 8;
    i += d;
    if (js_numch[(unsigned char)p[i]]) {
        if (p[i] == '.') { /* a fraction (Kineto's floats: "blocks per SM", "warps per SM") */
            i++;
            while ((d = jp_digits8(p + i)) == 8) i += 8;
            i += d;
        }
        while (i < n && js_numch[(unsigned char)p[i]]) i++;
    }
    return i < n ? i : 0;
}

/* Any value at p[i], skipped as js_skip() does (containers: brackets must
 * match, strings may hold escapes): the index after it, or 0. */
static inline size_t jp_skip(const char *p, size_t i, size_t n)
{
    char c = p[i];
    if (c == '"') return jp_string(p, i, n);
    if (c == 't') return n - i > 4 && !memcmp(p + i, "true", 4) ? i + 4 : 0;
    if (c == 'f') return n - i > 5 && !memcmp(p + i, "false", 5) ? i + 5 : 0;
    if (c == 'n') return n - i > 4 && !memcmp(p + i, "null", 4) ? i + 4 : 0;
    if (c != '[' && c != '{') return jp_number(p, i, n);
    return js_plain_skip_container(p, i, n);
}

/* A plain integer (what js_value_number(scale 0) reads exactly): the index
 * after it, or 0. */
static inline size_t jp_int(const char *p, size_t i, size_t n, int64_t *out)
{
    size_t j = i + (p[i] == '-');
    uint64_t v;
    unsigned len = jp_digit_run(p + j, &v);
    j += len;
    if (len == 0 || len > 18 || j >= n || js_numch[(unsigned char)p[j]]) return 0;
    *out = p[i] == '-' ? -(int64_t)v : (int64_t)v;
    return j;
}

/* The length of the array or object at s[0] when it lies whole in s[0..n)
 * and is written exactly as read_compact() would write it (", " and ": "
 * between items, no other blanks, no trailing comma, strings without
 * backslashes, numbers that start with a digit or '-' and a digit, true,
 * false, null); 0 otherwise.  PyTorch writes "Input Dims" and "Input type"
 * so: the text is then interned as it is, without tokenizing it.  s[n] is
 * the scanner's NUL with 16 readable bytes past it (js_peek_value), so
 * strings are scanned 16 bytes at a time. */
static inline size_t jp_compact_span(const char *s, size_t n)
{
    char stack[32];
    int depth = 0;
    enum { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, AFTER } st = VALUE;
    if (n == 0 || (s[0] != '[' && s[0] != '{')) return 0;
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        switch (st) {
        case VALUE_OR_CLOSE:
            if (c == ']') goto close;
            /* fall through */
        case VALUE:
            if (c == '[' || c == '{') {
                if (depth == (int)sizeof stack) return 0;
                stack[depth++] = c;
                i++;
                st = c == '[' ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
                continue;
            }
            if (c == '"') {
                size_t q = jp_find_stop(s, i + 1, false);
                if (q >= n || s[q] != '"') return 0;
                i = q + 1;
            } else if ((c >= '0' && c <= '9') || (c == '-' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')) {
                i++;
                while (i < n && js_numch[(unsigned char)s[i]]) i++;
            } else if (c == 't' && n - i >= 4 && !memcmp(s + i, "true", 4)) i += 4;
            else if (c == 'f' && n - i >= 5 && !memcmp(s + i, "false", 5)) i += 5;
            else if (c == 'n' && n - i >= 4 && !memcmp(s + i, "null", 4)) i += 4;
            else return 0;
            st = AFTER;
            continue;
        case KEY_OR_CLOSE:
            if (c == '}') goto close;
            /* fall through */
        case KEY: {
            if (c != '"') return 0;
            size_t q = jp_find_stop(s, i + 1, false);
            if (q >= n || s[q] != '"') return 0;
            i = q + 1;
            if (n - i < 2 || s[i] != ':' || s[i + 1] != ' ') return 0;
            i += 2;
            st = VALUE;
            continue;
        }
        case AFTER:
            if (c == ',') {
                if (n - i < 2 || s[i + 1] != ' ') return 0;
                i += 2;
                st = stack[depth - 1] == '{' ? KEY : VALUE;
                continue;
            }
            if (c == ']' || c == '}') goto close;
            return 0;
        }
    close:
        if (c != stack[depth - 1] + 2) return 0; /* '[' + 2 = ']', '{' + 2 = '}' */
        i++;
        if (--depth == 0) return i;
        st = AFTER;
    }
    return 0;
}

/* 10^0 .. 10^19, all exact in 64 bits. */
static const uint64_t jp_pow10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
    10000000ull, 100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};

/* The plain form -?digits[.digits] at p[i], as the readers below take it
 * apart: its sign, the digits before and after the point (each run's value
 * as jp_digit_run() gives it: exact while the run is short enough for the
 * caller's limit on ndigits + nfrac) and the index after it, or 0 when no
 * digit follows the sign.  What byte may end it is the caller's test. */
typedef struct jp_plain {
    uint64_t whole, frac;
    unsigned ndigits, nfrac;
    bool neg;
} jp_plain;

static inline size_t jp_plain_lex(const char *p, size_t i, jp_plain *x)
{
    x->neg = p[i] == '-';
    size_t j = i + x->neg;
    x->frac = 0;
    x->nfrac = 0;
    x->ndigits = jp_digit_run(p + j, &x->whole);
    if (x->ndigits == 0) return 0;
    j += x->ndigits;
    if (p[j] == '.') {
        x->nfrac = jp_digit_run(p + j + 1, &x->frac);
        j += 1 + x->nfrac;
    }
    return j;
}

/* A number at p[i] of the one form js_number() decodes while lexing
 * (-?digits[.digits], at most 18 digits, then a byte that cannot go on a
 * number), times 10^scale (0..18), truncated as js_number() does: the index
 * after it, or 0 (*out untouched).  Truncation keeps the first `scale`
 * decimals and drops the rest, so the value is the integer digits times
 * 10^scale plus those decimals padded to `scale` digits; it is taken when
 * that is at most INT64_MAX (all of it exact in 64 bits: the digits are
 * below 10^18).  jp_scaled() reads the common forms inline, this reads any. */
static __attribute__((noinline, cold, unused)) size_t jp_scaled_any(const char *p, size_t i, int scale, int64_t *out)
{
    jp_plain x;
    size_t j = jp_plain_lex(p, i, &x);
    if (!j || x.ndigits + x.nfrac > 18 || js_numch[(unsigned char)p[j]]) return 0;
    uint64_t v = x.whole * jp_pow10[x.nfrac] + x.frac, w; /* below 10^18 */
    if (scale >= (int)x.nfrac) {
        if (__builtin_mul_overflow(v, jp_pow10[scale - (int)x.nfrac], &w)) return 0;
    } else {
        w = v / jp_pow10[(int)x.nfrac - scale];
    }
    if (w > (uint64_t)INT64_MAX) return 0;
    *out = x.neg ? -(int64_t)w : (int64_t)w;
    return j;
}

/* jp_scaled_any() at scale 3 (µs to ns) for the forms profilers write,
 * inline: 1..16 integer digits, then perhaps a point and 0..7 decimals
 * (0..14 when the point comes early), of which the first 3 are kept
 * ("ts": 1736408883694624, "ts": 1736408883694.810, "dur": 12.345, 1234 or
 * 12.5).  The integer digits come 8 at a time (up to two words full of
 * them, then the word where they end: k digits, 0..7).  After a point at
 * k <= 4 that word holds 3 decimals too: with the point taken out (the
 * bytes after it moved down one) they are one number of k + 3 digits, the
 * value's last part in ns; after a later point the decimals are a word of
 * their own.  At most 16 integer digits times 1000 stays below 2^64, so
 * the value is exact in 64 bits and one compare finds it over INT64_MAX.
 * Anything else (another scale, 17 or more digits, more decimals) goes to
 * jp_scaled_any(), with the same result.  Each load starts at or before the
 * NUL at p[n] (on a digit or just past one or a point), so none reads past
 * p[n + 7]. */
static inline __attribute__((always_inline)) size_t jp_scaled(const char *p, size_t i, int scale, int64_t *out)
{
    const uint64_t zeros = 0x3030303030303030ull;
    if (scale != 3) return jp_scaled_any(p, i, scale, out);
    bool neg = p[i] == '-';
    size_t j = i + neg, s = j, end;
    uint64_t value = 0, x, y, stops;
    memcpy(&x, p + s, 8);
    y = x - zeros;
    stops = jp_swar_digit_stops(x, y);
    if (!stops) { /* 8 integer digits, then more: a ts */
        value = jp_swar_value8(y);
        s += 8;
        memcpy(&x, p + s, 8);
        y = x - zeros;
        stops = jp_swar_digit_stops(x, y);
        if (!stops) {
            value = value * 100000000 + jp_swar_value8(y);
            s += 8;
            memcpy(&x, p + s, 8);
            y = x - zeros;
            stops = jp_swar_digit_stops(x, y);
            if (!(stops & 0x80)) return jp_scaled_any(p, i, scale, out); /* 17 digits or more */
        }
    }
    /* x at p + s: k digits (the last integer digits), then what ends them */
    unsigned k8 = (unsigned)__builtin_ctzll(stops) & ~7u, k = k8 / 8, frac;
    if (k == 0 && s == j) return 0; /* no digit */
    if (p[s + k] != '.') { /* an integer: 1..16 digits */
        if (js_numch[(unsigned char)p[s + k]]) return 0; /* an exponent, a sign: not this form */
        if (k) value = value * jp_pow10[k] + jp_swar_value8(y << (64 - k8));
        value *= 1000;
        if (value > (uint64_t)INT64_MAX) return 0; /* 16 digits may be too many */
        *out = neg ? -(int64_t)value : (int64_t)value;
        return s + k;
    }
    if (k <= 4) { /* the point, and at least 3 bytes after it, in this word */
        uint64_t below = ~(~0ull << k8);
        x = (x & below) | ((x >> 8) & ~below); /* the point taken out: the top byte is 0 */
        y = x - zeros;
        unsigned t8 = (unsigned)__builtin_ctzll(jp_swar_digit_stops(x, y)) & ~7u; /* k + the decimals here */
        if (t8 == k8 + 24 && s - j < 16 && !js_numch[(unsigned char)p[s + k + 4]]) {
            /* exactly 3 decimals, at most 12 integer digits: Kineto's own form */
            value = value * jp_pow10[k + 3] + jp_swar_value8(y << (40 - k8));
            *out = neg ? -(int64_t)value : (int64_t)value;
            return s + k + 4;
        }
        frac = (t8 - k8) / 8;
        end = s + t8 / 8 + 1;
        if (t8 == 56) { /* the decimals may go on in the next word */
            uint64_t z;
            memcpy(&z, p + s + 8, 8);
            uint64_t more = jp_swar_digit_stops(z, z - zeros);
            if (!more) return jp_scaled_any(p, i, scale, out);
            unsigned m = (unsigned)__builtin_ctzll(more) / 8;
            frac += m;
            end += m;
        }
        unsigned keep8 = t8 < k8 + 24 ? t8 : k8 + 24; /* the integer digits and up to 3 decimals */
        value = value * jp_pow10[k + 3] + jp_swar_value8((y & ~(~0ull << keep8)) << (40 - k8));
    } else { /* 5..7 integer digits here, the decimals in the next word */
        value = value * jp_pow10[k] + jp_swar_value8(y << (64 - k8));
        memcpy(&x, p + s + k + 1, 8);
        y = x - zeros;
        stops = jp_swar_digit_stops(x, y);
        if (!stops) return jp_scaled_any(p, i, scale, out);
        unsigned f8 = (unsigned)__builtin_ctzll(stops) & ~7u, keep8 = f8 < 24 ? f8 : 24;
        frac = f8 / 8;
        end = s + k + 1 + frac;
        value = value * 1000 + jp_swar_value8((y & ~(~0ull << keep8)) << 40);
    }
    if (s - j + k + frac > 18 || js_numch[(unsigned char)p[end]] || value > (uint64_t)INT64_MAX) return 0;
    *out = neg ? -(int64_t)value : (int64_t)value;
    return end;
}

/* "[x, y, z]" at p[i], three non-negative ints of up to 9 digits each
 * (", " between them, no other blanks), as Kineto writes a kernel's grid and
 * block: the index after it, with the three in out[], or 0 when it is not so
 * (a sign, a point, an exponent, a longer number, other blanks: the token
 * path reads those).  It reads no byte past the first that is not a digit,
 * ',', ' ' or ']' (at the latest p[n], the NUL). */
static inline size_t jp_dim3(const char *p, size_t i, size_t n, int32_t out[3])
{
    if (p[i] != '[') return 0;
    int32_t v[3];
    size_t j = i + 1;
    int got = 0;
    for (; got < 3; got++) {
        size_t d = j;
        int32_t x = 0;
        while (j - d < 9 && p[j] >= '0' && p[j] <= '9') x = x * 10 + (p[j++] - '0');
        if (j == d || js_numch[(unsigned char)p[j]]) break;
        v[got] = x;
        if (got < 2 && p[j] == ',' && p[j + 1] == ' ') j += 2;
        else {
            got++;
            break;
        }
    }
    if (got != 3 || j >= n || p[j] != ']') return 0;
    memcpy(out, v, sizeof v);
    return j + 1;
}

/* A number at p[i] of the plain form -?digits[.digits] (at most 19 digits,
 * then a byte that cannot go on a number, before n) as a double: the index
 * after it (jp_number()'s end), or 0 for any other form (an exponent, more
 * digits, NaN), which ml_parse_double() (decimal.c) then reads.  The value
 * is the one ml_parse_double() gives for that text, bit for bit: all the
 * digits as one integer (exact: below 10^19) times ml_pow10(-frac), as
 * its short path multiplies, one rounding, then the sign. */
static inline size_t jp_decimal(const char *p, size_t i, size_t n, double *out)
{
    jp_plain x;
    size_t j = jp_plain_lex(p, i, &x);
    if (!j || x.ndigits + x.nfrac > 19 || j >= n || js_numch[(unsigned char)p[j]]) return 0;
    double d = (double)(x.whole * jp_pow10[x.nfrac] + x.frac) * ml_pow10(-(int)x.nfrac);
    *out = x.neg ? -d : d;
    return j;
}

/* A pid, tid or flow id at p[i], as js_value_scalar_text() gives it: a
 * string's raw text (without backslashes here) or a number's bytes.  The
 * index after the value, or 0. */
static inline __attribute__((always_inline)) size_t jp_scalar_text(const char *p, size_t i, size_t n, const char **text, size_t *len)
{
    size_t end = p[i] == '"' ? jp_string(p, i, n) : jp_number(p, i, n);
    if (!end) return 0;
    bool str = p[i] == '"';
    *text = p + i + str;
    *len = end - i - 2 * str;
    return end;
}

/* An address (read as text, digits only, as read_args() does): the index
 * after it, or 0 when read_args() would call it not a number. */
static inline size_t jp_uint(const char *p, size_t i, uint64_t *out)
{
    uint64_t a;
    unsigned len = jp_digit_run(p + i, &a);
    if (len == 0 || len > 19 || js_numch[(unsigned char)p[i + len]]) return 0;
    *out = a;
    return i + len;
}

/* A hash of n bytes (8 at a time; 7 bytes past them may be read). */
static inline uint64_t jp_hash(const char *s, size_t n)
{
    uint64_t h = n * 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    if (i < n) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ (w & (~0ull >> (8 * (8 - (n - i)))))) * 0xff51afd7ed558ccdull;
    }
    return h ^ h >> 29;
}

/* Whether the len bytes at a are those at b (16 readable bytes past each).
 * Up to 16 bytes: one compare, masked to len; longer: 32 bytes a step, and
 * the last 16 compared where they end (overlapping the step before), so
 * that no mask is built (the literals and memos of kineto_event.c compare
 * some 150 bytes an event). */
static inline bool jp_same_bytes(const char *a, const char *b, size_t len)
{
#ifdef __SSE2__
#define JP_EQ16(x, y) _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(x)), \
                                     _mm_loadu_si128((const __m128i *)(const void *)(y)))
    if (len <= 16) return (~(unsigned)_mm_movemask_epi8(JP_EQ16(a, b)) & ((1u << len) - 1)) == 0;
    size_t i = 0;
    for (; i + 32 <= len; i += 32)
        if (_mm_movemask_epi8(_mm_and_si128(JP_EQ16(a + i, b + i), JP_EQ16(a + i + 16, b + i + 16))) != 0xFFFF)
            return false;
    if (i == len) return true;
    __m128i eq = JP_EQ16(a + len - 16, b + len - 16);
    if (len - i > 16) eq = _mm_and_si128(eq, JP_EQ16(a + i, b + i));
    return _mm_movemask_epi8(eq) == 0xFFFF;
#undef JP_EQ16
#else
    return memcmp(a, b, len) == 0;
#endif
}

#endif
