/*
 * err.h — how memlens reports failure.
 *
 * Every fallible function takes an `ml_err *` and returns 0 on success or -1
 * on failure, after writing one human-readable line into the error.  The line
 * names the file and the position ("trace.json: byte 1234: expected ':'"),
 * so that `main` can print it as is and exit with status 2.
 */
#ifndef ML_ERR_H
#define ML_ERR_H

#include <stdarg.h>
#include <stddef.h>

#define ML_ERR_MAX 512

typedef struct ml_err {
    char msg[ML_ERR_MAX];
} ml_err;

/* Formats the message into `e` (if non-NULL) and returns -1. */
int ml_fail(ml_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ml_vfail(ml_err *e, const char *fmt, va_list ap);

/* Prefixes an existing message, e.g. with the file name: "path: <old msg>". */
int ml_prefix(ml_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What cannot be returned as an error (out of memory, a broken internal
 * invariant): ml_fatal formats "out of memory (asked for 12 bytes)", hands
 * it to the handler the embedder set, and aborts should the handler return.
 * The library prints nothing itself: the program (src/cli/main.c) sets a
 * handler that prints "memlens: MSG" and exits with status 3; the Python
 * extension one that writes it to the interpreter's stderr.  The handler is
 * set once, before any call (it is configuration, not state). */
typedef void (*ml_fatal_fn)(const char *msg);
void ml_set_fatal_handler(ml_fatal_fn fn);
_Noreturn void ml_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that never returns NULL: out of memory is ml_fatal(). */
void *ml_malloc(size_t n);
void *ml_calloc(size_t n, size_t size);
void *ml_realloc(void *p, size_t n);
char *ml_strdup(const char *s);
char *ml_strndup(const char *s, size_t n);

#endif
