/* The plain-buffer JSON helpers (readers/jsonplain.h) that read numbers:
 * jp_number() against a byte-by-byte reference on many generated inputs
 * (accept or reject, and the end index), and jp_dim3() on the grid/block
 * triples Kineto writes and the forms it leaves to the token path.  Every
 * buffer is as js_peek_value() gives it: the text, a NUL, then exactly 16
 * readable bytes, allocated to that size so that ASan (make SAN=1) sees any
 * load past them. */
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

int main(void)
{
    RUN(number_examples);
    RUN(number_agrees_with_byte_loop);
    RUN(dim3_forms);
    return check_report();
}
