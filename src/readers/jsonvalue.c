/* jsonvalue.c — JSON values over the streaming scanner; see jsonvalue.h. */
#include "jsonvalue.h"

#include <stdlib.h>
#include <string.h>

#include "jsonscan.h"

typedef struct jr {
    js_scanner *js;
    ml_pvs *st;
    ml_append_hook hook;
    void *user;
    ml_err *e;
} jr;

static ml_pv text_value(jr *r)
{
    size_t n;
    const char *s = js_has_escape(r->js) ? js_unescape(r->js, &n) : js_text(r->js, &n);
    return ml_pv_make_str(r->st, s, n);
}

static ml_pv number(jr *r)
{
    size_t n;
    const char *s = js_text(r->js, &n);
    size_t i = s[0] == '-';
    int integral = i < n;
    uint64_t u = 0;
    for (; i < n && integral; i++) {
        if (s[i] < '0' || s[i] > '9' || u > (UINT64_MAX - 9) / 10) integral = 0;
        else u = u * 10 + (uint64_t)(s[i] - '0');
    }
    if (integral && s[0] != '-' && u <= INT64_MAX) return ml_pv_make_int(r->st, (int64_t)u);
    if (integral && s[0] == '-' && u <= (uint64_t)INT64_MAX + 1) return ml_pv_make_int(r->st, (int64_t)(0 - u));
    char buf[64];
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return ml_pv_make_float(r->st, strtod(buf, NULL));
}

static int value(jr *r, js_tok t, ml_pv *out, int depth)
{
    ml_pv c, item, key;
    switch (t) {
    case JS_NULL: *out = ML_PV_NONE_V; return 0;
    case JS_TRUE: *out = ml_pv_bool(1); return 0;
    case JS_FALSE: *out = ml_pv_bool(0); return 0;
    case JS_STRING: *out = text_value(r); return 0;
    case JS_NUMBER: *out = number(r); return 0;
    case JS_OBJECT:
        if (depth >= JS_MAX_DEPTH) return js_fail(r->js, r->e, "nesting deeper than %d", JS_MAX_DEPTH);
        c = ml_pv_new(r->st, ML_PV_DICT);
        for (;;) {
            t = js_next(r->js);
            if (t == JS_OBJECT_END || t == JS_END) break;
            if (t != JS_KEY) return t == JS_ERROR ? ml_fail(r->e, "%s", js_error(r->js)) : js_fail(r->js, r->e, "expected a key");
            key = text_value(r);
            if (value(r, js_next(r->js), &item, depth + 1) < 0) return -1;
            ml_pv kv[2] = {key, item};
            ml_pv_append(r->st, c, kv, 2);
        }
        *out = c;
        return 0;
    case JS_ARRAY:
        if (depth >= JS_MAX_DEPTH) return js_fail(r->js, r->e, "nesting deeper than %d", JS_MAX_DEPTH);
        c = ml_pv_new(r->st, ML_PV_LIST);
        for (;;) {
            t = js_next(r->js);
            if (t == JS_ARRAY_END || t == JS_END) break;
            if (value(r, t, &item, depth + 1) < 0) return -1;
            int took = r->hook && ml_pv_cont_type(ml_pv_cont_of(r->st, item)) == ML_PV_DICT
                           ? r->hook(r->user, r->st, c, item, r->e) : 0;
            if (took < 0) return -1;
            if (took) ml_pv_drop(r->st, item);
            else ml_pv_append(r->st, c, &item, 1);
        }
        *out = c;
        return 0;
    case JS_ERROR: return ml_fail(r->e, "%s", js_error(r->js));
    case JS_END: return js_fail(r->js, r->e, "unexpected end of input");
    default: return js_fail(r->js, r->e, "unexpected token");
    }
}

int ml_jsonvalue_read(ml_source *src, ml_pvs *st, ml_append_hook hook, void *user, ml_pv *out, ml_err *e)
{
    jr r = {.js = js_open(src), .st = st, .hook = hook, .user = user, .e = e};
    int rc = value(&r, js_next(r.js), out, 0);
    js_close(r.js);
    return rc;
}
