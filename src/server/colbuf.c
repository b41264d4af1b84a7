/*
 * colbuf.c — API answers as JSON or as a binary frame of columns; see colbuf.h.
 */
#include "colbuf.h"

#include <string.h>

#include "err.h"


void ml_cb_begin(ml_colbuf *cb, ml_buf *out, int binary)
{
    memset(cb, 0, sizeof *cb);
    cb->out = out;
    cb->binary = binary;
    if (!binary) ml_buf_puts(out, "{");
}

static ml_buf *key(ml_colbuf *cb, const char *k)
{
    ml_buf *b = cb->binary ? &cb->head : cb->out;
    if (cb->nfields++) ml_buf_puts(b, ",");
    ml_json_str(b, k);
    ml_buf_puts(b, ":");
    return b;
}

void ml_cb_i64(ml_colbuf *cb, const char *k, int64_t v) { ml_json_i64(key(cb, k), v); }
void ml_cb_bool(ml_colbuf *cb, const char *k, int v) { ml_buf_puts(key(cb, k), v ? "true" : "false"); }
void ml_cb_json(ml_colbuf *cb, const char *k, const char *json) { ml_buf_puts(key(cb, k), json); }

/* Binary: the column's descriptor, and room for its bytes at the next
 * multiple of 8 of the data section. */
static char *bin_col(ml_colbuf *cb, const char *k, const char *dt, size_t n, size_t width)
{
    ml_buf *d = &cb->data;
    size_t at = (d->len + 7) / 8 * 8, need = at + n * width + 1;
    if (need > d->cap) {
        size_t cap = d->cap ? d->cap : 4096;
        while (cap < need) cap *= 2;
        d->p = ml_realloc(d->p, cap);
        d->cap = cap;
    }
    memset(d->p + d->len, 0, need - d->len);
    d->len = at + n * width;
    ml_buf_puts(&cb->cols, cb->ncols++ ? ",{\"k\":" : "{\"k\":");
    ml_json_str(&cb->cols, k);
    ml_buf_printf(&cb->cols, ",\"dt\":\"%s\",\"n\":%zu,\"o\":%zu}", dt, n, at);
    return d->p + at;
}

#define COL_BODY(T, DT, CONV)                                                      \
    do {                                                                           \
        if (cb->binary) {                                                          \
            char *dst = bin_col(cb, k, DT, n, sizeof(T));                          \
            for (size_t j = 0; j < n; j++) {                                       \
                T x = (T)col[idx ? idx[j] : j];                                    \
                memcpy(dst + j * sizeof(T), &x, sizeof(T)); /* little-endian hosts */ \
            }                                                                      \
            return;                                                                \
        }                                                                          \
        ml_buf *b = key(cb, k);                                                    \
        ml_buf_put(b, "[", 1);                                                     \
        for (size_t j = 0; j < n; j++) {                                           \
            if (j) ml_buf_put(b, ",", 1);                                          \
            CONV(b, col[idx ? idx[j] : j]);                                        \
        }                                                                          \
        ml_buf_put(b, "]", 1);                                                     \
    } while (0)

void ml_cb_col_i64(ml_colbuf *cb, const char *k, const int64_t *col, const uint32_t *idx, size_t n)
{
    COL_BODY(double, "f64", ml_json_i64);
}

void ml_cb_col_u32(ml_colbuf *cb, const char *k, const uint32_t *col, const uint32_t *idx, size_t n)
{
    COL_BODY(uint32_t, "u32", ml_json_i64);
}

void ml_cb_col_u8(ml_colbuf *cb, const char *k, const uint8_t *col, const uint32_t *idx, size_t n)
{
    COL_BODY(uint8_t, "u8", ml_json_i64);
}

void ml_cb_finish(ml_colbuf *cb)
{
    if (!cb->binary) {
        ml_buf_puts(cb->out, "}");
        return;
    }
    ml_buf h = {0};
    ml_buf_puts(&h, "{");
    if (cb->head.len) { ml_buf_put(&h, cb->head.p, cb->head.len); ml_buf_puts(&h, ","); }
    ml_buf_puts(&h, "\"cols\":[");
    if (cb->cols.len) ml_buf_put(&h, cb->cols.p, cb->cols.len);
    ml_buf_puts(&h, "]}");
    uint8_t pre[8] = { 'M', 'L', 'B', '1', (uint8_t)h.len, (uint8_t)(h.len >> 8), (uint8_t)(h.len >> 16),
                       (uint8_t)(h.len >> 24) };
    static const char zero[8] = {0};
    ml_buf_put(cb->out, pre, 8);
    ml_buf_put(cb->out, h.p, h.len);
    ml_buf_put(cb->out, zero, (8 - (8 + h.len) % 8) % 8);
    if (cb->data.len) ml_buf_put(cb->out, cb->data.p, cb->data.len);
    ml_buf_free(&h);
    ml_buf_free(&cb->head);
    ml_buf_free(&cb->cols);
    ml_buf_free(&cb->data);
}

int ml_cb_is_binary(const char *p, size_t len) { return p && len >= 8 && !memcmp(p, "MLB1", 4); }
