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

int ml_parse_units(const char *s, size_t n, int64_t mul, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    int ndigits = 0;
    if (mul <= 0 || mul > 1000000000) return -1;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    __int128 ip = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, ndigits++) {
        ip = ip * 10 + (s[i] - '0');
        if (ip > INT64_MAX) return -1;
    }
    /* 19 fraction digits are kept exactly (mul <= 1e9 keeps fp * mul in
     * range); later digits are below any unit we scale to and are ignored. */
    __int128 fp = 0, p10 = 1;
    int nfrac = 0;
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, ndigits++) {
            if (nfrac < 19) {
                fp = fp * 10 + (s[i] - '0');
                p10 *= 10;
                nfrac++;
            }
        }
    }
    if (i != n || ndigits == 0) return -1;
    __int128 num = fp * mul;
    __int128 q = num / p10, r = num % p10;
    if (r != 0 && 2 * r >= p10) q++; /* nearest; a tie goes away from zero */
    __int128 v = ip * mul + q;
    if (neg) v = -v;
    if (v > INT64_MAX || v < INT64_MIN) return -1;
    *out = (int64_t)v;
    return 0;
}

int ml_parse_double(const char *s, size_t n, double *out)
{
    decimal d;
    if (split_decimal(s, n, &d) < 0) return -1;
    double v = (double)d.mant * pow(10.0, d.exp);
    *out = d.neg ? -v : v;
    return isfinite(v) ? 0 : -1;
}
