/* decimal.c — exact decimal text parsing; see decimal.h. */
#include "decimal.h"

#include <math.h>
#include <stdbool.h>

int ml_parse_i64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i == n) return -1;
    uint64_t v = 0;
    if (n - i <= 18) { /* (18 digits cannot overflow: no check per digit) */
        for (; i < n; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (d > 9) return -1;
            v = v * 10 + d;
        }
    }
    for (; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9) return -1;
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* Splits text into sign, digits (integer+fraction, leading zeros dropped) and a
 * decimal exponent, so that value = digits * 10^exp. */
typedef struct decimal {
    bool neg;
    uint64_t mant;     /* up to 19 significant digits */
    int exp;
    int dropped;       /* significant digits that did not fit in mant (counted into exp) */
} decimal;

static int split_decimal(const char *s, size_t n, decimal *d)
{
    size_t i = 0;
    d->neg = false;
    d->mant = 0;
    d->exp = 0;
    d->dropped = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) d->neg = s[i++] == '-';
    int digits = 0, mant_digits = 0;
    bool seen_point = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            digits++;
            if (mant_digits < 19) {
                if (d->mant || c != '0') mant_digits++;
                d->mant = d->mant * 10 + (uint64_t)(c - '0');
                if (seen_point) d->exp--;
            } else if (!seen_point) {
                d->exp++; /* integer digit beyond precision: scale up */
                if (c != '0') d->dropped++;
            } else if (c != '0') {
                d->dropped++;
            }
        } else if (c == '.' && !seen_point) {
            seen_point = true;
        } else if (c == 'e' || c == 'E') {
            int64_t e;
            if (ml_parse_i64(s + i + 1, n - i - 1, &e) < 0) return -1;
            /* Past +-400 the value is 0 or out of range whatever the digits: clamp. */
            d->exp += (int)(e > 400 ? 400 : e < -400 ? -400 : e);
            i = n;
            break;
        } else {
            return -1;
        }
    }
    return digits ? 0 : -1;
}

static const uint64_t pow10_u64[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull};

/* mant * 10^exp as int64, truncated toward zero; ML_PARSE_RANGE on overflow. */
static int scale_to_i64(const decimal *d, int exp, int64_t *out)
{
    unsigned __int128 v = d->mant;
    if (exp >= 0) {
        if (exp > 19 && v) return ML_PARSE_RANGE;
        v *= exp <= 19 ? pow10_u64[exp] : 1;
    } else {
        int k = -exp;
        v = k > 19 ? 0 : v / pow10_u64[k];
    }
    if (v > (unsigned __int128)INT64_MAX + (d->neg ? 1 : 0)) return ML_PARSE_RANGE;
    /* Negated as unsigned: -2^63 has no positive int64 to negate. */
    *out = d->neg ? (int64_t)(0 - (uint64_t)v) : (int64_t)(uint64_t)v;
    return 0;
}

int ml_parse_scaled(const char *s, size_t n, int scale, int64_t *out)
{
    decimal d;
    if (split_decimal(s, n, &d) < 0) return -1;
    if (scale > 400 || scale < -400) return -1;
    return scale_to_i64(&d, d.exp + scale, out);
}

/* The text of a plain or exponent decimal as value = mant * 10^exp10, exactly
 * up to UNITS_DIGITS significant digits (later digits are dropped: they lie
 * far below any unit memlens scales to and can only turn an exact tie into a
 * value just above it, which rounds the same way). */
#define UNITS_DIGITS 28 /* mant < 10^28, so mant * mul (mul <= 1e9) fits in 128 bits */

typedef struct units_text {
    bool neg;
    unsigned __int128 mant;
    int64_t exp10;
    bool dropped;      /* a non-zero digit past the kept ones */
} units_text;

static int split_units(const char *s, size_t n, units_text *u)
{
    size_t i = 0;
    int ndigits = 0, sig = 0;
    u->neg = false;
    u->mant = 0;
    u->exp10 = 0;
    u->dropped = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) u->neg = s[i++] == '-';
    bool point = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.' && !point) {
            point = true;
            continue;
        }
        if (c < '0' || c > '9') break;
        ndigits++;
        if (sig < UNITS_DIGITS) {
            if (u->mant || c != '0') sig++;
            u->mant = u->mant * 10 + (unsigned)(c - '0');
            if (point) u->exp10--;
        } else {
            if (!point) u->exp10++; /* an integer digit past the kept ones still counts ten */
            if (c != '0') u->dropped = true;
        }
    }
    if (ndigits == 0) return -1;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        int64_t e;
        /* |e| <= 9999: far beyond int64 either way, and no overflow in exp10 */
        if (ml_parse_i64(s + i + 1, n - i - 1, &e) < 0 || e > 9999 || e < -9999) return -1;
        u->exp10 += e;
        i = n;
    }
    return i == n ? 0 : -1;
}

int ml_parse_units(const char *s, size_t n, int64_t mul, int64_t *out)
{
    units_text u;
    if (mul <= 0 || mul > 1000000000 || split_units(s, n, &u) < 0) return -1;
    unsigned __int128 v = u.mant * (unsigned __int128)mul, limit = (unsigned __int128)INT64_MAX + u.neg;
    if (u.exp10 >= 0) {
        for (int64_t k = 0; k < u.exp10 && v; k++) {
            if (v > limit / 10) return -1;
            v *= 10;
        }
    } else if (u.exp10 < -38) {
        v = 0; /* v < 10^37: under half a unit */
    } else {
        unsigned __int128 p10 = 1;
        for (int64_t k = 0; k < -u.exp10; k++) p10 *= 10;
        unsigned __int128 q = v / p10, r = v % p10;
        v = q + (r && 2 * r >= p10); /* nearest; a tie goes away from zero */
    }
    if (v > limit) return -1;
    *out = u.neg ? (int64_t)(0 - (uint64_t)v) : (int64_t)(uint64_t)v;
    return 0;
}

int ml_parse_integral(const char *s, size_t n, int64_t *out)
{
    units_text u;
    if (split_units(s, n, &u) < 0 || u.dropped) return -1;
    /* Exact only: a fraction that is not all zeros is refused. */
    while (u.exp10 < 0 && u.mant && u.mant % 10 == 0) u.mant /= 10, u.exp10++;
    if (u.exp10 < 0 && u.mant) return -1;
    return ml_parse_units(s, n, 1, out);
}

/* 10^k for |k| <= 22 as pow(10, k) gives it: the positive powers are exact
 * doubles, the negative ones the nearest double to 10^k, which the
 * compiler's decimal literals are as well (test_decimal checks every entry
 * against pow bit for bit).  pow itself cost ~120 instructions a number. */
enum { POW10_TABLE_MAX = 22 };
static const double pow10_double[2 * POW10_TABLE_MAX + 1] = {
    1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11,
    1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1,
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

double ml_pow10(int k)
{
    return k >= -POW10_TABLE_MAX && k <= POW10_TABLE_MAX ? pow10_double[k + POW10_TABLE_MAX] : pow(10.0, k);
}

int ml_parse_double(const char *s, size_t n, double *out)
{
    /* Plain text of at most 19 digits ("12.5", "-0.0625"): every digit fits
     * in mant, so this is split_decimal's split without its bookkeeping (and
     * the same mant * 10^exp).  Anything else (an exponent, a '+', more
     * digits) goes the whole way. */
    if (n && n <= 19) {
        size_t i = s[0] == '-';
        uint64_t mant = 0;
        int exp = 0, point = 0, digits = 0;
        for (; i < n; i++) {
            unsigned c = (unsigned)(s[i] - '0');
            if (c <= 9) mant = mant * 10 + c, exp -= point, digits++;
            else if (s[i] == '.' && !point) point = 1;
            else break;
        }
        if (i == n && digits) {
            double v = (double)mant * ml_pow10(exp);
            *out = s[0] == '-' ? -v : v;
            return 0;
        }
    }
    decimal d;
    if (split_decimal(s, n, &d) < 0) return -1;
    double v = (double)d.mant * ml_pow10(d.exp);
    *out = d.neg ? -v : v;
    return isfinite(v) ? 0 : -1;
}
