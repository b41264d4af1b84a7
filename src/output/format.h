/*
 * format.h — how numbers look to people: binary byte units, counts with
 * thousands separators, and absolute wall-clock times.
 */
#ifndef ML_FORMAT_H
#define ML_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytesize.h" /* ml_fmt_bytes: "6.17 GiB", "512 B", "-1.50 MiB" */

/* "13,385" */
char *ml_fmt_count(int64_t n, char *buf, size_t cap);
/* Absolute: "2022-11-30 04:48:07.464300 UTC" (ns digits when present);
 * relative: "+1.234567 s". */
char *ml_fmt_time(int64_t ns, bool absolute, char *buf, size_t cap);
/* "2022-11-30 04:48:07.404123" (digits 6) or ".404123456" (digits 9): UTC
 * wall-clock time of Unix-epoch ns, without a zone. */
char *ml_fmt_utc(int64_t ns, int digits, char *buf, size_t cap);
/* A duration: "1.234 s", "12.5 ms", "830 µs". */
char *ml_fmt_duration(int64_t ns, char *buf, size_t cap);

#endif
