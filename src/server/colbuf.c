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
    if (!binary) {
        jw_init_buf(&cb->w, out, false);
        jw_obj(&cb->w);
        return;
    }
    /* the header's fields and column descriptors are pieces of the header
     * object that ml_cb_finish writes around them */
    jw_init_buf(&cb->w, &cb->head, false);
    jw_enter(&cb->w, 1, false);
    jw_init_buf(&cb->cw, &cb->cols, false);
    jw_enter(&cb->cw, 1, false);
}

void ml_cb_i64(ml_colbuf *cb, const char *k, int64_t v) { jw_key(&cb->w, k), jw_i64_js(&cb->w, v); }
void ml_cb_bool(ml_colbuf *cb, const char *k, int v) { jw_key(&cb->w, k), jw_bool(&cb->w, v); }
jw *ml_cb_key(ml_colbuf *cb, const char *k)
{
    jw_key(&cb->w, k);
    return &cb->w;
}

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
    jw *w = &cb->cw;
    jw_obj(w);
    jw_key(w, "k"), jw_str(w, k);
    jw_key(w, "dt"), jw_str(w, dt);
    jw_key(w, "n"), jw_i64(w, (int64_t)n);
    jw_key(w, "o"), jw_i64(w, (int64_t)at);
    jw_end(w);
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
        jw_key(&cb->w, k);                                                         \
        jw_arr(&cb->w);                                                            \
        for (size_t j = 0; j < n; j++) CONV(&cb->w, (int64_t)col[idx ? idx[j] : j]); \
        jw_end(&cb->w);                                                            \
    } while (0)

void ml_cb_col_i64(ml_colbuf *cb, const char *k, const int64_t *col, const uint32_t *idx, size_t n)
{
    COL_BODY(double, "f64", jw_i64_js);
}

void ml_cb_col_u32(ml_colbuf *cb, const char *k, const uint32_t *col, const uint32_t *idx, size_t n)
{
    COL_BODY(uint32_t, "u32", jw_i64_js);
}

void ml_cb_col_u8(ml_colbuf *cb, const char *k, const uint8_t *col, const uint32_t *idx, size_t n)
{
    COL_BODY(uint8_t, "u8", jw_i64_js);
}

void ml_cb_finish(ml_colbuf *cb)
{
    if (!cb->binary) {
        jw_end(&cb->w);
        return;
    }
    ml_buf h = {0};
    jw w;
    jw_init_buf(&w, &h, false);
    jw_obj(&w);
    jw_paste(&w, cb->head.p, cb->head.len);
    jw_key(&w, "cols");
    jw_arr(&w);
    jw_paste(&w, cb->cols.p, cb->cols.len);
    jw_end(&w);
    jw_end(&w);
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
