/*
 * ascend_tv.c — the events of trace_view.json, field by field; see ascend_tv.h.
 */
#include "ascend_tv.h"

#include <stdbool.h>
#include <string.h>

static bool key_is(js_scanner *js, const char *k)
{
    size_t n;
    const char *s = js_text(js, &n);
    return n == strlen(k) && memcmp(s, k, n) == 0;
}

/* The field of list f[0..n) named by the key just read, or NULL. */
static const ml_tv_field *wanted(js_scanner *js, const ml_tv_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (key_is(js, f[i].key)) return &f[i];
    return NULL;
}

/* Reads the value after a wanted key into f->dst (objects and arrays are
 * skipped: ""); -1 when the scanner fails. */
static int value_text(js_scanner *js, const ml_tv_field *f)
{
    js_tok v = js_next(js);
    if (v == JS_ERROR) return -1;
    if ((v == JS_OBJECT || v == JS_ARRAY) && js_skip_rest(js) < 0) return -1;
    f->dst[0] = 0;
    if (v != JS_STRING && v != JS_NUMBER) return 0;
    size_t n;
    const char *s = js_text(js, &n);
    if (n >= f->cap) n = f->cap - 1;
    memcpy(f->dst, s, n);
    f->dst[n] = 0;
    return 0;
}

int ml_tv_open(ml_tv_scan *s, ml_source *src, const ml_tv_field *top, size_t ntop, const ml_tv_field *args,
               size_t nargs)
{
    *s = (ml_tv_scan){js_open(src), top, args, ntop, nargs, JS_END};
    js_tok t = js_next(s->js);
    if (t == JS_OBJECT) { /* {"traceEvents": [...]} */
        while ((t = js_next(s->js)) == JS_KEY && !key_is(s->js, "traceEvents"))
            if (js_skip(s->js) < 0) return s->tok = t, -1;
        if (t == JS_KEY) t = js_next(s->js);
    }
    s->tok = t;
    return t == JS_ARRAY;
}

/* The event's "args": its wanted keys; -1 when the scanner fails. */
static int read_args(ml_tv_scan *s)
{
    js_tok v = js_next(s->js);
    if (v == JS_ERROR) return -1;
    if (v != JS_OBJECT) return v == JS_ARRAY && js_skip_rest(s->js) < 0 ? -1 : 0;
    while ((v = js_next(s->js)) == JS_KEY) {
        const ml_tv_field *f = wanted(s->js, s->args, s->nargs);
        if (f ? value_text(s->js, f) < 0 : js_skip(s->js) < 0) return -1;
    }
    return v == JS_OBJECT_END ? 0 : -1;
}

int ml_tv_next(ml_tv_scan *s)
{
    js_scanner *js = s->js;
    js_tok t;
    for (;;) {
        t = js_next(js);
        if (t == JS_ARRAY_END || t == JS_END) return s->tok = t, 0;
        if (t == JS_ERROR) return s->tok = t, -1;
        if (t == JS_OBJECT) break;
        if (t == JS_ARRAY && js_skip_rest(js) < 0) return s->tok = t, -1;
    }
    for (size_t i = 0; i < s->ntop; i++) s->top[i].dst[0] = 0;
    for (size_t i = 0; i < s->nargs; i++) s->args[i].dst[0] = 0;
    while ((t = js_next(js)) == JS_KEY) {
        const ml_tv_field *f = wanted(js, s->top, s->ntop);
        int rc = f ? value_text(js, f) : key_is(js, "args") ? read_args(s) : js_skip(js) < 0 ? -1 : 0;
        if (rc < 0) return s->tok = JS_KEY, -1; /* inside the event: said to be malformed */
    }
    s->tok = t;
    return t == JS_OBJECT_END ? 1 : -1;
}

void ml_tv_close(ml_tv_scan *s)
{
    js_close(s->js);
    s->js = NULL;
}
