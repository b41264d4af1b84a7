/*
 * units.h — the model's units and sentinels, shared by every table
 * (profile.h, trace.h): time is int64 ns and sizes int64 bytes, both below
 * 2^62 in magnitude so that a sum or difference of two never overflows.
 */
#ifndef ML_UNITS_H
#define ML_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#define ML_TIME_NONE INT64_MIN  /* "no time": e.g. allocated before the trace */
#define ML_TIME_END  INT64_MAX  /* "never freed within the trace" */
#define ML_NONE32    UINT32_MAX /* absent index in a uint32 column */

#define ML_VALUE_LIMIT ((int64_t)1 << 62) /* |time ns| and |bytes| stay below this (4.6e18) */
static inline bool ml_value_ok(int64_t v) { return v > -ML_VALUE_LIMIT && v < ML_VALUE_LIMIT; }
/* a + b, clamped to int64's range. */
static inline int64_t ml_add_sat(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

#endif
