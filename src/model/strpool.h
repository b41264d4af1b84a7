/*
 * strpool.h — interned strings.
 *
 * Names (operators, frames, files, components) repeat millions of times in a
 * trace; the model keeps a 32-bit id per occurrence and each distinct string
 * once.  Id 0 is the empty string, so zero-initialised columns mean "none".
 */
#ifndef ML_STRPOOL_H
#define ML_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t ml_str;

typedef struct ml_strpool ml_strpool;

ml_strpool *ml_strpool_new(void);
void ml_strpool_free(ml_strpool *sp);

/* Returns the id of the string s[0..n), adding it if new.  s need not be
 * NUL-terminated; a NUL byte inside it is stored as U+2400 (strpool.c says why). */
ml_str ml_intern(ml_strpool *sp, const char *s, size_t n);
ml_str ml_intern_cstr(ml_strpool *sp, const char *s);
/* The same for binary data kept in the pool (a pickle's bytes and big ints):
 * every byte as it is, NUL included (read back with ml_strlen). */
ml_str ml_intern_bytes(ml_strpool *sp, const char *s, size_t n);

/* The NUL-terminated text of id; valid until the pool is freed. */
const char *ml_strget(const ml_strpool *sp, ml_str id);
size_t ml_strlen(const ml_strpool *sp, ml_str id);
size_t ml_strpool_count(const ml_strpool *sp);

#endif
