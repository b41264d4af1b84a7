/*
 * textbuf.h — ml_buf, a growable text buffer, with JSON helpers that write
 * into it: the writer of the report's meta JSON and of the server's answers
 * (the CLI's JSON goes through jsonw.h; issue 37 item 3 makes them one).
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

/* JSON string literal (quoted, escaped; "</" written as "<\/" so that it is
 * safe inside a <script> element). */
void ml_json_str(ml_buf *b, const char *s);
/* JSON text taken from the input (an arg kept as compact JSON), copied with
 * every byte that begins no valid UTF-8 sequence as U+FFFD and raw control
 * bytes (which compact JSON has only inside strings) escaped: valid JSON
 * whatever bytes the input's strings held. */
void ml_json_verbatim(ml_buf *b, const char *json);
/* An int64 as a JSON number when a double holds it exactly, else as a string. */
void ml_json_i64(ml_buf *b, int64_t v);

#endif
