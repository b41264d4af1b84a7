/* The plain-buffer JSON helpers (readers/jsonplain.h) that read numbers:
 * jp_number() against a byte-by-byte reference on many generated inputs
 * (accept or reject, and the end index), jp_dim3() on the grid/block
 * triples Kineto writes and the forms it leaves to the token path, and
 * jp_decimal() bit for bit against ml_parse_double() (decimal.c), the
 * parser whose result it stands in for, and jp_scaled() (every event's
 * "ts" and "dur") against the function it replaced, kept here as the
 * reference, on generated texts of every digit count, sign, point,
 * exponent and end, with values near INT64's limits.  Every buffer is as
 * js_peek_value() gives it: the text, a NUL, then exactly 16 readable
 * bytes, allocated to that size so that ASan (make SAN=1) sees any load
 * past them. */
#include "check.h"
#include "decimal.h"
#include "jsonplain.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

enum { PAD_AFTER_NUL = 16 };

/* The first n bytes of s, a NUL, and PAD_AFTER_NUL NULs after it; free()d by the caller. */
static char *plain_buf(const char *s, size_t n)
{
    char *b = malloc(n + 1 + PAD_AFTER_NUL);
    memcpy(b, s, n);
    memset(b + n, 0, 1 + PAD_AFTER_NUL);
    return b;
}

/* jp_number() as a plain byte loop: a digit or '-' and a digit, then
 * every byte of js_numch[] up to n; 0 when that reaches n. */
static size_t ref_number(const char *p, size_t i, size_t n)
{
    if (i >= n) return 0;
    bool digit = p[i] >= '0' && p[i] <= '9';
    if (!digit && !(p[i] == '-' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9')) return 0;
    size_t j = i + 1;
    while (j < n && js_numch[(unsigned char)p[j]]) j++;
    return j < n ? j : 0;
}

/* A small deterministic generator (xorshift64*), so a failure repeats. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static unsigned rng_below(unsigned k) { return (unsigned)(rng() % k); }

/* Text of digit runs (0..30 long) between single other bytes: number
 * bytes (sign, point, exponent, NaN's letters) and bytes that end one. */
static size_t gen_numberish(char *s, size_t cap)
{
    static const char others[] = "-+.eENaInfity,} ]\n\"x.-.";
    size_t len = 0, want = 1 + rng_below((unsigned)cap - 1);
    while (len < want) {
        unsigned run = rng_below(4) == 0 ? rng_below(31) : rng_below(4);
        for (unsigned k = 0; k < run && len < want; k++) s[len++] = (char)('0' + rng_below(10));
        if (len < want) s[len++] = rng_below(16) == 0 ? 0 : others[rng_below(sizeof others - 1)];
    }
    return len;
}

TEST(number_examples)
{
    static const struct {
        const char *text;
        size_t end;
    } cases[] = {
        {"123,", 3},
        {"0}", 1},
        {"-1.5e-3}", 7},
        {"12345678901234567890.123456789012,", 33},
        {"1.2.3,", 5},           /* lexed whole, as lex_number() does (the scanner then says what is wrong) */
        {"01 ", 2},
        {"-12345678 ", 9},       /* a run of exactly 8 */
        {"1234567812345678.8765432187654321]", 33},
        {"7.,", 2},
        {"NaN,", 0},             /* not from a digit: left to the token path */
        {"-Infinity,", 0},
        {"-x", 0},
        {".5,", 0},
        {"", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = strlen(cases[c].text);
        char *p = plain_buf(cases[c].text, n);
        CHECK_EQ_I64(jp_number(p, 0, n), cases[c].end);
        CHECK_EQ_I64(ref_number(p, 0, n), cases[c].end);
        free(p);
    }
    /* a number that runs up to n is not whole: 0 */
    char *p = plain_buf("12345678901234567", 17);
    CHECK_EQ_I64(jp_number(p, 0, 17), 0);
    free(p);
    p = plain_buf("3.14159265", 10);
    CHECK_EQ_I64(jp_number(p, 0, 10), 0);
    free(p);
}

/* Many generated texts, every start and many ends: the same answer as the
 * byte loop.  Also with n cut inside the text (the bytes after n still the
 * text's, so p[n] may be a digit: outside js_peek_value's contract, and
 * still the same answer). */
TEST(number_agrees_with_byte_loop)
{
    char s[80];
    int compared = 0, accepted = 0;
    for (int round = 0; round < 20000; round++) {
        size_t len = gen_numberish(s, sizeof s);
        for (size_t n = 0; n <= len; n++) {
            char *cut = plain_buf(s, n);  /* the contract: p[n] is the NUL */
            char *whole = plain_buf(s, len);
            for (size_t i = 0; i < 3 && i <= n; i++) {
                size_t want = ref_number(cut, i, n);
                size_t got = jp_number(cut, i, n);
                if (got != want) CHECK_FAILED_("\"%.*s\" at %zu, n %zu: %zu, expected %zu", (int)n, s, i, n, got, want);
                got = jp_number(whole, i, n);
                if (got != want) CHECK_FAILED_("\"%.*s\" at %zu, n %zu of %zu: %zu, expected %zu", (int)len, s, i, n, len, got, want);
                compared++;
                accepted += want != 0;
            }
            free(cut);
            free(whole);
        }
    }
    CHECK(compared > 500000);
    CHECK(accepted > 50000); /* the generator makes numbers, not only rejects */
}

/* jp_scaled() as it was before its SWAR fast path (98a561d), the reference
 * for the one now: the digit runs, then the value scaled in 128 bits. */
static size_t ref_scaled(const char *p, size_t i, int scale, int64_t *out)
{
    bool neg = p[i] == '-';
    size_t j = i + neg;
    uint64_t v, fv = 0;
    unsigned digits = jp_digit_run(p + j, &v), frac = 0;
    if (digits == 0) return 0;
    j += digits;
    if (p[j] == '.') {
        frac = jp_digit_run(p + j + 1, &fv);
        j += 1 + frac;
    }
    if (digits + frac > 18 || js_numch[(unsigned char)p[j]]) return 0;
    static const uint64_t pow10[19] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
        100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
        100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
        1000000000000000000ull};
    v = v * pow10[frac] + fv;
    int shift = scale - (int)frac;
    unsigned __int128 w = v;
    if (shift >= 0) w *= pow10[shift];
    else w /= pow10[-shift];
    if (w > (unsigned __int128)INT64_MAX) return 0;
    *out = neg ? -(int64_t)w : (int64_t)w;
    return j;
}

/* Whether jp_scaled() and ref_scaled() give the same for the text s[0..n)
 * read at i with this scale (end, value, *out untouched on a refusal); the
 * buffer is as js_peek_value() gives it, allocated to that size.  Its
 * result: the end (0 when refused). */
static size_t scaled_agrees(const char *s, size_t n, size_t i, int scale)
{
    char *p = plain_buf(s, n);
    int64_t got = INT64_MIN + 7, want = INT64_MIN + 7;
    size_t end = jp_scaled(p, i, scale, &got), want_end = ref_scaled(p, i, scale, &want);
    if (end != want_end || got != want)
        CHECK_FAILED_("\"%.*s\" at %zu, scale %d: end %zu value %" PRId64 ", expected end %zu value %" PRId64, (int)n, s,
                      i, scale, end, got, want_end, want);
    free(p);
    return end;
}

TEST(scaled_examples)
{
    static const struct {
        const char *text;
        int scale;
        size_t end;
        int64_t v;
    } cases[] = {
        {"1736397613000000.123,", 3, 0, 0},                   /* Kineto's ts: 19 digits, left to the token path */
        {"1736397613000000.1,", 3, 18, 1736397613000000100},
        {"1736408883694624,", 3, 16, 1736408883694624000},    /* older Kineto's ts: 16 digits, no point */
        {"1736408883694.810,", 3, 17, 1736408883694810},      /* a ts with the point in the second word */
        {"12.345,", 3, 6, 12345},                             /* a dur */
        {"12.5,", 3, 4, 12500},                               /* fewer decimals: padded */
        {"123456.7}", 3, 8, 123456700},
        {"1.2345678,", 3, 9, 1234},                           /* 7 decimals, the point early */
        {"1.23456789012,", 3, 13, 1234},                      /* decimals into the next word */
        {"1234}", 3, 4, 1234000},
        {"99999999999.999,", 3, 15, 99999999999999},          /* gen_trace's ts */
        {"1234.5678,", 3, 9, 1234567},                        /* more decimals: truncated */
        {"-1.9999,", 3, 7, -1999},
        {"-0.0009,", 3, 7, 0},
        {"7.,", 3, 2, 7000},
        {"0,", 3, 1, 0},
        {"12345678.1 ", 3, 10, 12345678100},                 /* exactly 8 integer digits */
        {"1234567890123456.78,", 3, 19, 1234567890123456780},
        {"12345678901234567,", 0, 17, 12345678901234567},   /* 17 digits: the general path */
        {"123456789012345678,", 0, 18, 123456789012345678},
        {"1.23456789,", 3, 10, 1234},                         /* 8 decimals: the general path */
        {"9223372036854775.8,", 3, 18, 9223372036854775800},  /* near INT64_MAX */
        {"-9223372036854775.8,", 3, 19, -9223372036854775800},
        {"9223372036854775.80,", 3, 19, 9223372036854775800},
        {"9223372036854775.81,", 3, 0, 0},                    /* over INT64_MAX */
        {"-9223372036854775.81,", 3, 0, 0},
        {"9223372036854775,", 3, 16, 9223372036854775000},
        {"9223372036854776,", 3, 0, 0},
        {"922337203685477581,", 1, 0, 0},
        {"92233720368547758.0,", 1, 19, 922337203685477580},
        {"922337203685477580,", 1, 18, 9223372036854775800},
        {"9223372036854775.807,", 3, 0, 0},                   /* 19 digits */
        {"9223372036854775807,", 0, 0, 0},
        {"9999999999999999.99,", 3, 0, 0},
        {"123456789012345678,", 3, 0, 0},                     /* 18 digits times 1000 */
        {"12345678901234567.8,", 3, 0, 0},
        {"1.5e3,", 3, 0, 0},                                  /* exponents: the token path */
        {"1e5,", 3, 0, 0},
        {"1.e5,", 3, 0, 0},
        {"1.2.3,", 3, 0, 0},
        {".5,", 3, 0, 0},
        {"-.123,", 3, 0, 0},                                  /* a point and 3 decimals, no integer digit */
        {"1234.567", 3, 8, 1234567},                          /* the point word full, ended by the NUL */
        {"12345.678,", 3, 9, 12345678},                       /* 5 digits before the point: the general path */
        {"-,", 3, 0, 0},
        {"--1,", 3, 0, 0},
        {"+1,", 3, 0, 0},
        {"NaN,", 3, 0, 0},
        {"12", 3, 2, 12000},                                  /* ends at the NUL */
        {"12.5", 3, 4, 12500},
        {"1.2345", 1, 6, 12},
        {"1.25,", 0, 4, 1},
        {"42.5,", 9, 4, 42500000000},
        {"3.14159265358979,", 18, 16, 3141592653589790000},   /* scale 18: the general path */
        {"9.3,", 18, 0, 0},                                   /* 9.3 * 10^18 > INT64_MAX */
        {"", 3, 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = strlen(cases[c].text);
        char *p = plain_buf(cases[c].text, n);
        int64_t v = -7;
        size_t end = jp_scaled(p, 0, cases[c].scale, &v);
        if (end != cases[c].end || (end && v != cases[c].v) || (!end && v != -7))
            CHECK_FAILED_("\"%s\" scale %d: end %zu value %" PRId64 ", expected %zu %" PRId64, cases[c].text,
                          cases[c].scale, end, v, cases[c].end, cases[c].v);
        scaled_agrees(cases[c].text, n, 0, cases[c].scale);
        free(p);
    }
}

/* Generated texts: a sign or not (or two, or '+'), 0..20 integer digits
 * (random, all nines, runs of zeros, or a prefix of INT64_MAX's digits with
 * the point where it makes the value INT64_MAX / 10^scale or a unit above
 * it), a point or not with 0..20 decimals, then an end (a byte that ends a
 * number, an exponent, more number bytes, or the end of the buffer), read
 * at 0..2 bytes of prefix, with every scale the callers could pass, and
 * with n cut at every place in the text: the same as ref_scaled(). */
TEST(scaled_random_against_reference)
{
    static const char *ends[] = {",", "}", " ", "\n", "]", "\"", "e5", "E-3", ".5", "-", "+", "x", ""};
    static const char *prefixes[] = {"", " ", ":", "-", "1"};
    static const int scales[] = {3, 3, 3, 0, 1, 2, 4, 6, 9, 18};
    static const char int64_max[] = "9223372036854775807";
    char s[96];
    int compared = 0, taken = 0, slow = 0;
    for (int round = 0; round < 120000; round++) {
        size_t len = 0;
        const char *pre = prefixes[rng_below(sizeof prefixes / sizeof prefixes[0])];
        memcpy(s, pre, strlen(pre));
        len = strlen(pre);
        size_t at = len;
        unsigned sign = rng_below(8);
        if (sign < 3) s[len++] = '-';
        else if (sign == 3) { s[len++] = '-'; s[len++] = '-'; }
        else if (sign == 4) s[len++] = '+';
        int scale = scales[rng_below(sizeof scales / sizeof scales[0])];
        unsigned shape = rng_below(6);
        unsigned intd = rng_below(3) == 0 ? rng_below(21) : 1 + rng_below(16), fracd = 0;
        bool point = rng_below(4) != 0;
        fracd = rng_below(4) == 0 ? rng_below(21) : rng_below(8);
        if (shape == 0) { /* INT64_MAX's digits with the point scale from the end: 0..scale decimals, perhaps one over */
            intd = 19 - (unsigned)(scale < 19 ? scale : 0);
            memcpy(s + len, int64_max, intd);
            len += intd;
            fracd = rng_below((unsigned)(19 - intd) + 1);
            point = fracd > 0 || rng_below(2);
            if (point) {
                s[len++] = '.';
                memcpy(s + len, int64_max + intd, fracd);
                len += fracd;
            }
            if (rng_below(2)) s[len - 1 - (fracd == 0 && point)]++; /* ...808: one unit over */
            if (point && rng_below(3) == 0) s[len++] = (char)('0' + rng_below(10)), fracd++;
        } else {
            for (unsigned k = 0; k < intd; k++)
                s[len++] = (char)(shape == 1 ? '9' : '0' + (shape == 2 && rng_below(2) ? 0 : rng_below(10)));
            if (point) {
                s[len++] = '.';
                for (unsigned k = 0; k < fracd; k++)
                    s[len++] = (char)(shape == 1 ? '9' : '0' + (shape == 2 && rng_below(2) ? 0 : rng_below(10)));
            }
        }
        const char *e = ends[rng_below(sizeof ends / sizeof ends[0])];
        memcpy(s + len, e, strlen(e));
        len += strlen(e);
        size_t end = scaled_agrees(s, len, at, scale);
        compared++;
        taken += end != 0;
        slow += end && (intd > 16 || fracd > 7);
        /* n cut inside the text: p[n] the NUL (the bytes after it gone) */
        for (size_t n = at; n < len; n++) {
            scaled_agrees(s, n, at, scale);
            compared++;
        }
    }
    CHECK(compared > 1000000);
    CHECK(taken > 30000);
    CHECK(slow > 500); /* the general path is reached, and taken */
}

TEST(dim3_forms)
{
    static const struct {
        const char *text;
        size_t end;
        int32_t x, y, z;
    } cases[] = {
        {"[1, 2, 3],", 9, 1, 2, 3},
        {"[256, 1, 1]\n", 11, 256, 1, 1},
        {"[0, 0, 0]", 9, 0, 0, 0},
        {"[123456789, 987654321, 100000000]}", 33, 123456789, 987654321, 100000000},
        {"[1234567890, 1, 1]", 0, 0, 0, 0}, /* 10 digits: may not fit int32 */
        {"[1,2,3]", 0, 0, 0, 0},            /* not as Kineto writes it */
        {"[1, 2]", 0, 0, 0, 0},
        {"[1, 2, 3, 4]", 0, 0, 0, 0},
        {"[-1, 2, 3]", 0, 0, 0, 0},
        {"[1.5, 2, 3]", 0, 0, 0, 0},
        {"[1e3, 1, 1]", 0, 0, 0, 0},
        {"[ 1, 2, 3]", 0, 0, 0, 0},
        {"[1, 2, 3 ]", 0, 0, 0, 0},
        {"[1, , 3]", 0, 0, 0, 0},
        {"[1, 2, 3", 0, 0, 0, 0},           /* the buffer ends: the NUL stops it */
        {"[1, 2, ", 0, 0, 0, 0},
        {"{1, 2, 3}", 0, 0, 0, 0},
        {"", 0, 0, 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = strlen(cases[c].text);
        char *p = plain_buf(cases[c].text, n);
        int32_t d3[3] = {-7, -7, -7};
        size_t end = jp_dim3(p, 0, n, d3);
        if (end != cases[c].end) CHECK_FAILED_("\"%s\": %zu, expected %zu", cases[c].text, end, cases[c].end);
        if (end) {
            CHECK_EQ_I64(d3[0], cases[c].x);
            CHECK_EQ_I64(d3[1], cases[c].y);
            CHECK_EQ_I64(d3[2], cases[c].z);
        } else {
            CHECK(d3[0] == -7 && d3[1] == -7 && d3[2] == -7); /* untouched */
        }
        free(p);
    }
    /* at an offset, and the triple ending exactly at n */
    const char *t = "\"grid\": [7, 8, 9]";
    char *p = plain_buf(t, strlen(t));
    int32_t d3[3];
    CHECK_EQ_I64(jp_dim3(p, 8, strlen(t), d3), 17);
    CHECK(d3[0] == 7 && d3[1] == 8 && d3[2] == 9);
    CHECK_EQ_I64(jp_dim3(p, 8, 16, d3), 0); /* n before the ']' */
    free(p);
}

/* Whether jp_decimal() reads the text at p[0..n) the way the KA_FLOAT path
 * would have without it (jp_number(), then ml_parse_double() on its text,
 * then float): the same end, the same double and float bit for bit.  Its
 * result: whether jp_decimal() took the text. */
static bool decimal_agrees(const char *text, size_t n)
{
    char *p = plain_buf(text, n);
    double d = -12345.0;
    size_t end = jp_decimal(p, 0, n, &d);
    if (end) {
        double want;
        size_t num_end = jp_number(p, 0, n);
        if (end != num_end) CHECK_FAILED_("\"%.*s\": end %zu, jp_number %zu", (int)n, text, end, num_end);
        else if (ml_parse_double(p, end, &want) != 0) CHECK_FAILED_("\"%.*s\": ml_parse_double refuses it", (int)n, text);
        else {
            float f = (float)d, fw = (float)want;
            if (memcmp(&d, &want, sizeof d) != 0 || memcmp(&f, &fw, sizeof f) != 0)
                CHECK_FAILED_("\"%.*s\": %.17g (%a), expected %.17g (%a)", (int)n, text, d, d, want, want);
        }
    } else if (d != -12345.0) {
        CHECK_FAILED_("\"%.*s\": refused, yet *out written", (int)n, text);
    }
    free(p);
    return end != 0;
}

TEST(decimal_edge_cases)
{
    static const char *taken[] = {
        "0,", "-0,", "-0.0,", "0.,", "5.}", "00.5,", "1.185185,", "0.592593,", "12.345 ", "100\n",
        "1234567890123456789,", "9999999999999999999,", "-9999999999999999999,", "1234567890.123456789,",
        "0.000000000000000001,", "16777216,", "16777217,", "16777218,", "16777219,", "0.1,", "0.2,", "0.3,",
    };
    for (size_t c = 0; c < sizeof taken / sizeof taken[0]; c++) {
        if (!decimal_agrees(taken[c], strlen(taken[c]))) CHECK_FAILED_("\"%s\" refused", taken[c]);
    }
    static const char *refused[] = {
        ".5,", "-.5,", "-,", ",", "1e5,", "1.5e3,", "1.5E-3,", "NaN,", "-Infinity,", "1.2.3,", "1-2,",
        "12345678901234567890,", "0.0000000000000000001,", "123456789012.12345678,", "5", "-0.25",
        "3.4028235e38,",
    };
    for (size_t c = 0; c < sizeof refused / sizeof refused[0]; c++) {
        if (decimal_agrees(refused[c], strlen(refused[c]))) CHECK_FAILED_("\"%s\" taken", refused[c]);
    }
    /* the value itself for a few, so that agreement is not agreement in error */
    double d;
    char *p = plain_buf("-0,", 3);
    CHECK_EQ_I64(jp_decimal(p, 0, 3, &d), 2);
    CHECK(d == 0.0 && signbit(d));
    free(p);
    p = plain_buf("1.185185,", 9);
    CHECK_EQ_I64(jp_decimal(p, 0, 9, &d), 8);
    CHECK((float)d == 1.185185f);
    free(p);
    p = plain_buf("16777217,", 9);
    CHECK_EQ_I64(jp_decimal(p, 0, 9, &d), 8);
    CHECK(d == 16777217.0 && (float)d == 16777216.0f); /* a float tie: to even */
    free(p);
}

/* Random plain decimals: any sign, 0..21 digits before and after a point
 * (leading and trailing zeros as they come), then a byte that ends the
 * number or one that goes on with it, or the end of the buffer.  Taken
 * exactly when it is plain, of 1..19 digits and ended: then identical. */
TEST(decimal_random_against_ml_parse_double)
{
    static const char *ends[] = {",", "}", " ", "\n", "]", "e5", "E-3", ".5", "-", "x", ""};
    char s[64];
    int taken = 0;
    for (int round = 0; round < 300000; round++) {
        size_t len = 0;
        bool neg = rng_below(3) == 0;
        if (neg) s[len++] = '-';
        unsigned intd = rng_below(4) == 0 ? rng_below(22) : 1 + rng_below(8), fracd = 0;
        bool zeros = rng_below(8) == 0; /* runs of zeros: "0.000012", "1000" */
        for (unsigned k = 0; k < intd; k++) s[len++] = (char)('0' + (zeros && rng_below(2) ? 0 : rng_below(10)));
        bool point = rng_below(4) != 0;
        if (point) {
            s[len++] = '.';
            fracd = rng_below(4) == 0 ? rng_below(22) : rng_below(10);
            for (unsigned k = 0; k < fracd; k++) s[len++] = (char)('0' + (zeros && rng_below(2) ? 0 : rng_below(10)));
        }
        const char *e = ends[rng_below(sizeof ends / sizeof ends[0])];
        size_t elen = strlen(e);
        memcpy(s + len, e, elen);
        len += elen;
        bool want = intd >= 1 && intd + fracd <= 19 && elen > 0 && !js_numch[(unsigned char)e[0]];
        bool got = decimal_agrees(s, len);
        if (got != want) CHECK_FAILED_("\"%.*s\": %s", (int)len, s, got ? "taken" : "refused");
        taken += got;
    }
    CHECK(taken > 100000);
}

/* Near float rounding boundaries: the midpoint between two neighbouring
 * floats (a double, exactly) written with as many decimals as fit in 19
 * digits, and one unit of its last digit either side; and the forms Kineto
 * (and gen_trace) write: "%.6f" of blocks / 108, "%.3f" of a bandwidth. */
TEST(decimal_float_boundaries)
{
    char s[64];
    int taken = 0;
    for (int round = 0; round < 40000; round++) {
        int expo = (int)rng_below(40) - 20; /* floats from 2^-20 to 2^20 */
        float f = ldexpf(1.0f + (float)rng_below(1u << 23) / (float)(1u << 23), expo);
        double mid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
        int intd = mid >= 1 ? (int)floor(log10(mid)) + 1 : 1;
        int decimals = 19 - intd;
        int len = snprintf(s, sizeof s, "%.*f", decimals, mid);
        for (int step = -1; step <= 1; step++) {
            char t[64];
            memcpy(t, s, (size_t)len);
            /* one unit in the last digit up or down (a carry or borrow stops at the point) */
            for (int k = len - 1; step && k >= 0 && t[k] != '.'; k--) {
                if (step > 0 && t[k] < '9') { t[k]++; break; }
                if (step < 0 && t[k] > '0') { t[k]--; break; }
                t[k] = step > 0 ? '0' : '9';
            }
            t[len] = ',';
            taken += decimal_agrees(t, (size_t)len + 1);
        }
    }
    CHECK(taken == 3 * 40000);
    for (int blocks = 1; blocks <= 20000; blocks++) {
        int len = snprintf(s, sizeof s, "%.6f,", blocks / 108.0);
        taken += decimal_agrees(s, (size_t)len);
        len = snprintf(s, sizeof s, "%.3f}", (double)blocks * 1048576.0 / (blocks % 97 + 1));
        taken += decimal_agrees(s, (size_t)len);
    }
    CHECK(taken == 3 * 40000 + 2 * 20000);
}

int main(void)
{
    RUN(number_examples);
    RUN(number_agrees_with_byte_loop);
    RUN(scaled_examples);
    RUN(scaled_random_against_reference);
    RUN(dim3_forms);
    RUN(decimal_edge_cases);
    RUN(decimal_random_against_ml_parse_double);
    RUN(decimal_float_boundaries);
    return check_report();
}
