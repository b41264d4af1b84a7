/* jsonw.c — JSON writer; see jsonw.h. */
#include "jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void jw_init(jw *w, FILE *f, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->pretty = pretty;
    w->first[0] = true;
}

static void newline(jw *w)
{
    if (!w->pretty) return;
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++) fputs("  ", w->f);
}

/* Separator before a value (or key) at the current depth. */
static void before_value(jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (!w->first[w->depth]) fputc(',', w->f);
    w->first[w->depth] = false;
    if (w->depth) newline(w);
}

static void open_container(jw *w, char open, char close)
{
    before_value(w);
    fputc(open, w->f);
    if (w->depth < JW_MAX_DEPTH - 1) w->depth++;
    w->first[w->depth] = true;
    w->closer[w->depth] = close;
}

void jw_obj(jw *w) { open_container(w, '{', '}'); }
void jw_arr(jw *w) { open_container(w, '[', ']'); }

void jw_end(jw *w)
{
    char close = w->closer[w->depth];
    bool empty = w->first[w->depth];
    if (w->depth) w->depth--;
    if (!empty) newline(w);
    fputc(close, w->f);
    if (w->depth == 0 && w->pretty) fputc('\n', w->f);
}

/* JSON is UTF-8: a byte that does not begin a valid sequence is written as
 * U+FFFD (names come from the input, which may hold any bytes). */
void jw_strn(jw *w, const char *s, size_t n)
{
    before_value(w);
    fputc('"', w->f);
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        switch (c) {
        case '"': fputs("\\\"", w->f); break;
        case '\\': fputs("\\\\", w->f); break;
        case '\n': fputs("\\n", w->f); break;
        case '\r': fputs("\\r", w->f); break;
        case '\t': fputs("\\t", w->f); break;
        default:
            if (c < 0x20) fprintf(w->f, "\\u%04x", c);
            else if (c < 0x80) fputc(c, w->f);
            else {
                size_t k = ml_utf8_seq(u + i, n - i);
                if (!k) fputs(ML_UTF8_REPLACEMENT, w->f);
                else fwrite(u + i, 1, k, w->f), i += k - 1;
            }
        }
    }
    fputc('"', w->f);
}

/* NULL is JSON's null: a field whose text is unknown (an accelerator's
 * allocator variable where it has none) */
void jw_str(jw *w, const char *s)
{
    if (s) jw_strn(w, s, strlen(s));
    else jw_null(w);
}

void jw_key(jw *w, const char *k)
{
    jw_str(w, k);
    fputs(w->pretty ? ": " : ":", w->f);
    w->after_key = true;
}

void jw_i64(jw *w, int64_t v)
{
    /* digits by hand and one fwrite: fprintf's format parsing was most of
     * the cost of a report's perf object (its GPU-time series) */
    before_value(w);
    char tmp[24];
    int k = sizeof tmp;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do tmp[--k] = (char)('0' + u % 10), u /= 10;
    while (u);
    if (v < 0) tmp[--k] = '-';
    fwrite(tmp + k, 1, sizeof tmp - (size_t)k, w->f);
}

void jw_dbl(jw *w, double v)
{
    before_value(w);
    if (isfinite(v)) fprintf(w->f, "%.17g", v);
    else fputs("null", w->f);
}

void jw_raw(jw *w, const char *json)
{
    before_value(w);
    fputs(json, w->f);
}

void jw_us(jw *w, int64_t ns)
{
    /* digits by hand, as jw_i64: its two snprintf were four fifths of the
     * cost of a report's perf object (its GPU-time series, ~1,900
     * instructions a value) */
    before_value(w);
    char tmp[32];
    int k = sizeof tmp;
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns, whole = a / 1000;
    unsigned frac = (unsigned)(a % 1000), digits = 3;
    if (frac) { /* ".123", ".12", ".1": no trailing zeros */
        while (frac % 10 == 0) frac /= 10, digits--;
        while (digits--) tmp[--k] = (char)('0' + frac % 10), frac /= 10;
        tmp[--k] = '.';
    }
    do tmp[--k] = (char)('0' + whole % 10), whole /= 10;
    while (whole);
    if (ns < 0) tmp[--k] = '-';
    fwrite(tmp + k, 1, sizeof tmp - (size_t)k, w->f);
}

void jw_fixed(jw *w, double v, int decimals)
{
    if (!isfinite(v)) {
        jw_null(w);
        return;
    }
    char buf[64];
    /* From 2^63 on (beyond any int64 figure), %f spells out more digits than
     * the buffer holds (1e308: 309 of them, cut to a wrong 63-digit integer):
     * the shortest exponent form that reads back as v, a JSON number too. */
    if (fabs(v) >= 9223372036854775808.0) {
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, v);
            if (strtod(buf, NULL) == v) break;
        }
        jw_raw(w, buf);
        return;
    }
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    if (strchr(buf, '.')) {
        size_t len = strlen(buf);
        while (buf[len - 1] == '0') buf[--len] = 0;
        if (buf[len - 1] == '.') buf[--len] = 0;
    }
    if (!strcmp(buf, "-0")) strcpy(buf, "0");
    jw_raw(w, buf);
}

void jw_bool(jw *w, bool v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->f);
}

void jw_null(jw *w)
{
    before_value(w);
    fputs("null", w->f);
}

void jw_init_in(jw *w, FILE *f, bool pretty, int depth, bool after_key)
{
    jw_init(w, f, pretty);
    if (depth < 0) depth = 0;
    if (depth > JW_MAX_DEPTH - 1) depth = JW_MAX_DEPTH - 1;
    w->depth = depth;
    w->first[depth] = true;
    w->after_key = after_key;
}

void jw_paste_begin(jw *w)
{
    if (!w->first[w->depth]) fputc(',', w->f);
    w->first[w->depth] = false;
}

void jw_paste(jw *w, const char *piece, size_t n)
{
    if (!n) return;
    jw_paste_begin(w);
    fwrite(piece, 1, n, w->f);
}
