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
            if (ml_parse_i64(s + i + 1, n - i - 1, &e) < 0 || e > 400 || e < -400) return -1;
            d->exp += (int)e;
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

/* mant * 10^exp as int64, truncated toward zero; -1 on overflow. */
static int scale_to_i64(const decimal *d, int exp, int64_t *out)
{
    unsigned __int128 v = d->mant;
    if (exp >= 0) {
        if (exp > 19 && v) return -1;
        v *= exp <= 19 ? pow10_u64[exp] : 1;
    } else {
        int k = -exp;
        v = k > 19 ? 0 : v / pow10_u64[k];
    }
    if (v > (unsigned __int128)INT64_MAX + (d->neg ? 1 : 0)) return -1;
    *out = d->neg ? -(int64_t)(uint64_t)v : (int64_t)(uint64_t)v;
    return 0;
}

int ml_parse_scaled(const char *s, size_t n, int scale, int64_t *out)
{
    decimal d;
    if (split_decimal(s, n, &d) < 0) return -1;
    return scale_to_i64(&d, d.exp + scale, out);
}

int ml_parse_units(const char *s, size_t n, int64_t multiplier, int64_t *out)
{
    decimal d;
    if (split_decimal(s, n, &d) < 0) return -1;
    /* value = mant * 10^exp * multiplier, rounded to nearest. */
    unsigned __int128 v = (unsigned __int128)d.mant * (uint64_t)multiplier;
    if (d.exp >= 0) {
        for (int k = 0; k < d.exp; k++) {
            v *= 10;
            if (v > (unsigned __int128)INT64_MAX) return -1;
        }
    } else {
        int k = -d.exp;
        if (k > 38) v = 0;
        else {
            unsigned __int128 p = 1;
            for (int j = 0; j < k; j++) p *= 10;
            v = (v + p / 2) / p;
        }
    }
    if (v > (unsigned __int128)INT64_MAX) return -1;
    *out = d.neg ? -(int64_t)(uint64_t)v : (int64_t)(uint64_t)v;
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
