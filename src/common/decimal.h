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
 * beyond the scale are truncated toward zero.  Returns 0, -1 on bad text, or
 * ML_PARSE_RANGE if it is a number that does not fit in int64. */
int ml_parse_scaled(const char *s, size_t n, int scale, int64_t *out);
#define ML_PARSE_RANGE (-2)

/* round(value * mul) with integer arithmetic, for unit conversion: µs text with
 * decimals -> ns (ML_US_TO_NS), MiB text -> bytes (ML_MIB), KiB -> bytes (ML_KIB).
 * Plain decimals and exponent forms ("9.5367431640625e-07", as Python writes
 * small floats) alike: the digits are scaled by the power of ten exactly, then
 * whatever is finer than one unit (a fraction of a byte or ns) rounds to the
 * nearest integer, a tie away from zero, just as for the same number written
 * out.  0 < mul <= 1e9; significant digits past the 28th are ignored (they are
 * below any unit).  Returns 0, or -1 if it is not such a number or the result
 * does not fit in int64. */
int ml_parse_units(const char *s, size_t n, int64_t mul, int64_t *out);

/* A decimal that is exactly an integer ("12", "12.0", "1.2e1"; not "1.5"):
 * for counts, indices and ids.  Returns 0, or -1 (not integral, out of range). */
int ml_parse_integral(const char *s, size_t n, int64_t *out);

#define ML_US_TO_NS 1000
#define ML_KIB 1024
#define ML_MIB 1048576

/* Any JSON-style number as a double (for values that are not exact anyway). */
int ml_parse_double(const char *s, size_t n, double *out);
/* 10^k, the value pow(10, k) gives (a table for |k| <= 22). */
double ml_pow10(int k);

#endif
