/* The plain-buffer JSON helpers (readers/jsonplain.h) that read numbers:
 * jp_number() against a byte-by-byte reference on many generated inputs
 * (accept or reject, and the end index), jp_dim3() on the grid/block
 * triples Kineto writes and the forms it leaves to the token path, and
 * jp_decimal() bit for bit against ml_parse_double() (decimal.c), the
 * parser whose result it stands in for.  Every buffer is as
 * js_peek_value() gives it: the text, a NUL, then exactly 16 readable
 * bytes, allocated to that size so that ASan (make SAN=1) sees any load
 * past them. */
#include "check.h"
#include "decimal.h"
#include "jsonplain.h"

#include <math.h>
#include <stdbool.h>

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
    RUN(dim3_forms);
    RUN(decimal_edge_cases);
    RUN(decimal_random_against_ml_parse_double);
    RUN(decimal_float_boundaries);
    return check_report();
}
