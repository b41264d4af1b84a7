/* bytes.h — a growable byte buffer, and a bounds-checked reader of one.
 *
 * What travels between processes (a rank record, a process's share of a
 * job under MPI) is written as a flat run of bytes: 64-bit integers in the
 * machine's order, strings as their length (-1 for none) and their bytes.
 * The reader never reads past the end: once anything is missing it is
 * marked bad and gives zeros and NULLs, so a caller checks `bad` once at
 * the end. */
#ifndef ML_BYTES_H
#define ML_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ml_bytes {
    char *p;
    size_t len, cap;
} ml_bytes;

void ml_bytes_put(ml_bytes *b, const void *x, size_t n);
void ml_bytes_put_i64(ml_bytes *b, int64_t v);
void ml_bytes_put_str(ml_bytes *b, const char *s); /* s may be NULL */
void ml_bytes_free(ml_bytes *b);

typedef struct ml_bytes_reader {
    const char *p;
    size_t n, at;
    bool bad;
} ml_bytes_reader;

/* The next n bytes (in place), or NULL (and bad) when fewer are left. */
const void *ml_bytes_take(ml_bytes_reader *r, size_t n);
int64_t ml_bytes_get_i64(ml_bytes_reader *r);
/* A new string (free()), or NULL for one written as NULL or when bad. */
char *ml_bytes_get_str(ml_bytes_reader *r);

#endif
