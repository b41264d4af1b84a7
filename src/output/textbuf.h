/*
 * textbuf.h — ml_buf, a growable byte buffer (text, HTML, binary frames).
 * JSON is written into one with jsonw.h (jw_init_buf).
 */
#ifndef ML_TEXTBUF_H
#define ML_TEXTBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ml_buf {
    char *p;
    size_t len, cap;
} ml_buf;

void ml_buf_put(ml_buf *b, const void *s, size_t n);
void ml_buf_puts(ml_buf *b, const char *s);
void ml_buf_printf(ml_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ml_buf_free(ml_buf *b);

#endif
