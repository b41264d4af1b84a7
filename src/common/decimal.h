/*
 * decimal.h — exact parsing of decimal numbers from text.
 *
 * Profilers write times like 1736408883694624.810 (µs) and sizes like
 * 1261.04296875 (MiB); a double cannot hold such values exactly, so memlens
 * parses the digits into integers scaled by a power of ten.  No locale, no
 * strtod.  All functions take text that is not NUL-terminated.
 */
#ifndef ML_DECIMAL_H
#define ML_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* Plain integer (optional sign).  Returns 0, or -1 if not an integer or out of range. */
int ml_parse_i64(const char *s, size_t n, int64_t *out);

/* value * 10^scale, exactly, for text like "-12.3450", "1.5e3", "7".  Digits
 * beyond the scale are truncated toward zero.  Returns -1 on bad text or overflow. */
int ml_parse_scaled(const char *s, size_t n, int scale, int64_t *out);

/* value * multiplier / divisor, exactly (rounded to nearest), for unit
 * conversion such as MiB text -> bytes (multiplier 1048576, divisor 1). */
int ml_parse_units(const char *s, size_t n, int64_t multiplier, int64_t *out);

/* Any JSON-style number as a double (for values that are not exact anyway). */
int ml_parse_double(const char *s, size_t n, double *out);

#endif
