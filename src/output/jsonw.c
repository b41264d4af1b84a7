/* jsonw.c — JSON writer; see jsonw.h. */
#include "jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

#include "utf8.h"

/* The sink: every byte goes through these three.  The FILE branch is the
 * CLI's (stdio buffers it); the buffer's appends one byte in place while
 * there is room. */
static inline void put(jw *w, const char *s, size_t n)
{
    if (w->f) fwrite(s, 1, n, w->f);
    else ml_buf_put(w->buf, s, n);
}

static inline void put1(jw *w, char c)
{
    if (w->f) {
        fputc(c, w->f);
        return;
    }
    ml_buf *b = w->buf;
    if (b->len + 2 <= b->cap) b->p[b->len++] = c, b->p[b->len] = 0;
    else ml_buf_put(b, &c, 1);
}

static inline void puts_(jw *w, const char *s)
{
    if (w->f) fputs(s, w->f);
    else ml_buf_puts(w->buf, s);
}

void jw_init(jw *w, FILE *f, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->pretty = pretty;
    w->first[0] = true;
}

void jw_init_buf(jw *w, ml_buf *b, bool pretty)
{
    jw_init(w, NULL, pretty);
    w->buf = b;
    w->script_safe = true;
}

long jw_offset(jw *w)
{
    if (!w->f) return (long)w->buf->len;
    fflush(w->f);
    return ftell(w->f);
}

/* A newline and two spaces a level, after a comma where one is due, in one
 * write (a write a level was most of the cost of perf --json's pretty
 * arrays of numbers). */
#define JW_SP8 "        "
#define JW_SP64 JW_SP8 JW_SP8 JW_SP8 JW_SP8 JW_SP8 JW_SP8 JW_SP8 JW_SP8
static const char newline_pad[] = ",\n" JW_SP64 JW_SP64;
_Static_assert(sizeof newline_pad >= 2 + 2 * JW_MAX_DEPTH, "a level deeper than the pad");

static void newline(jw *w)
{
    if (!w->pretty) return;
    put(w, newline_pad + 1, 1 + 2 * (size_t)w->depth);
}

/* Separator before a value (or key) at the current depth. */
static void before_value(jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    bool comma = !w->first[w->depth];
    w->first[w->depth] = false;
    if (w->depth && w->pretty) put(w, newline_pad + !comma, (size_t)comma + 1 + 2 * (size_t)w->depth);
    else if (comma) put1(w, ',');
}

static void open_container(jw *w, char open, char close)
{
    before_value(w);
    put1(w, open);
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
    put1(w, close);
    if (w->depth == 0 && w->pretty) put1(w, '\n');
}

/* JSON is UTF-8: a byte that does not begin a valid sequence is written as
 * U+FFFD (names come from the input, which may hold any bytes).  Bytes that
 * need nothing are copied in runs. */
void jw_strn(jw *w, const char *s, size_t n)
{
    before_value(w);
    put1(w, '"');
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        const char *esc;
        char tmp[8];
        if (c >= 0x80) {
            size_t k = ml_utf8_seq(u + i, n - i);
            if (k) {
                i += k - 1;
                continue;
            }
            esc = ML_UTF8_REPLACEMENT;
        } else if (c >= 0x20 && c != '"' && c != '\\') {
            if (c != '/' || !w->script_safe || !i || u[i - 1] != '<') continue;
            esc = "\\/";
        } else if (c == '"') esc = "\\\"";
        else if (c == '\\') esc = "\\\\";
        else if (c == '\n') esc = "\\n";
        else if (c == '\r') esc = "\\r";
        else if (c == '\t') esc = "\\t";
        else snprintf(tmp, sizeof tmp, "\\u%04x", c), esc = tmp;
        if (i > run) put(w, s + run, i - run);
        puts_(w, esc);
        run = i + 1;
    }
    if (n > run) put(w, s + run, n - run);
    put1(w, '"');
}

/* NULL is JSON's null: a field whose text is unknown (an accelerator's
 * allocator variable where it has none) */
void jw_str(jw *w, const char *s)
{
    if (s) jw_strn(w, s, strlen(s));
    else jw_null(w);
}

void jw_text(jw *w, const char *s) { jw_strn(w, s ? s : "", s ? strlen(s) : 0); }

void jw_key(jw *w, const char *k)
{
    jw_str(w, k);
    if (w->pretty) put(w, ": ", 2);
    else put1(w, ':');
    w->after_key = true;
}

/* A number's text, at most 32 bytes, built at the end of a 32-byte scratch:
 * into the buffer with one fixed-size copy while it has room (a call to
 * ml_buf_put and its memcpy a number was half of the cost of a report's
 * GPU-time series); the bytes past the number's are overwritten by the
 * next write, and the terminating zero is kept. */
enum { NUM_MAX = 32 };
static inline void put_num(jw *w, const char tmp[NUM_MAX], int k)
{
    size_t n = NUM_MAX - (size_t)k;
    ml_buf *b = w->buf;
    if (!w->f && b->len + NUM_MAX + 1 <= b->cap) {
        memcpy(b->p + b->len, tmp + k, NUM_MAX); /* fixed size: inlined */
        b->len += n;
        b->p[b->len] = 0;
    } else put(w, tmp + k, n);
}

/* u's decimal digits ending before tmp[k], two at a time from a table (a
 * division per pair instead of per digit); returns where they begin. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";
static inline int put_digits(char *tmp, int k, uint64_t u)
{
    while (u >= 100) {
        unsigned pair = (unsigned)(u % 100);
        u /= 100;
        k -= 2;
        memcpy(tmp + k, digit_pairs + 2 * pair, 2);
    }
    if (u >= 10) {
        k -= 2;
        memcpy(tmp + k, digit_pairs + 2 * u, 2);
    } else tmp[--k] = (char)('0' + u);
    return k;
}

/* Digits by hand and one write: fprintf's format parsing was most of the
 * cost of a report's perf object (its GPU-time series), and a window of
 * allocations writes ~10^6 numbers.  quoted: the digits as a string. */
static void put_int(jw *w, int64_t v, bool quoted)
{
    before_value(w);
    char tmp[NUM_MAX + NUM_MAX] = {0}; /* the second half: room for put_num's fixed copy */
    int k = NUM_MAX;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (quoted) tmp[--k] = '"';
    k = put_digits(tmp, k, u);
    if (v < 0) tmp[--k] = '-';
    if (quoted) tmp[--k] = '"';
    put_num(w, tmp, k);
}

void jw_i64(jw *w, int64_t v) { put_int(w, v, false); }

void jw_u64(jw *w, uint64_t v)
{
    before_value(w);
    char tmp[NUM_MAX + NUM_MAX] = {0};
    put_num(w, tmp, put_digits(tmp, NUM_MAX, v));
}

void jw_i64_js(jw *w, int64_t v)
{
    const int64_t exact = (int64_t)1 << 53;
    put_int(w, v, v < -exact || v > exact);
}

void jw_dbl(jw *w, double v)
{
    before_value(w);
    if (!isfinite(v)) {
        put(w, "null", 4);
        return;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%.17g", v);
    put(w, buf, (size_t)n);
}

void jw_raw(jw *w, const char *json)
{
    before_value(w);
    puts_(w, json);
}

void jw_rawn(jw *w, const char *json, size_t n)
{
    before_value(w);
    put(w, json, n);
}

void jw_verbatim(jw *w, const char *json)
{
    before_value(w);
    const unsigned char *u = (const unsigned char *)json, *run = u;
    for (; *u; u++) {
        char tmp[8];
        const char *esc;
        if (*u < 0x20) snprintf(tmp, sizeof tmp, "\\u%04x", *u), esc = tmp;
        else if (*u < 0x80) continue;
        else {
            size_t k = ml_utf8_seq(u, 4);
            if (k) {
                u += k - 1;
                continue;
            }
            esc = ML_UTF8_REPLACEMENT;
        }
        put(w, (const char *)run, (size_t)(u - run));
        puts_(w, esc);
        run = u + 1;
    }
    put(w, (const char *)run, (size_t)(u - run));
}

void jw_us(jw *w, int64_t ns)
{
    /* digits by hand, as jw_i64: its two snprintf were four fifths of the
     * cost of a report's perf object (its GPU-time series, ~1,900
     * instructions a value) */
    before_value(w);
    char tmp[NUM_MAX + NUM_MAX] = {0};
    int k = NUM_MAX;
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns, whole = a / 1000;
    unsigned frac = (unsigned)(a % 1000);
    if (frac) { /* ".123", ".12", ".1": no trailing zeros */
        unsigned digits = 3;
        while (frac % 10 == 0) frac /= 10, digits--;
        k -= (int)digits;
        for (unsigned d = digits; d--; frac /= 10) tmp[k + (int)d] = (char)('0' + frac % 10);
        tmp[--k] = '.';
    }
    k = put_digits(tmp, k, whole);
    if (ns < 0) tmp[--k] = '-';
    put_num(w, tmp, k);
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
    if (v) put(w, "true", 4);
    else put(w, "false", 5);
}

void jw_null(jw *w)
{
    before_value(w);
    put(w, "null", 4);
}

void jw_put_in_script(ml_buf *out, const char *json, size_t n)
{
    if (!n) return;
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        if (json[i] != '<') continue;
        ml_buf_put(out, json + from, i - from);
        ml_buf_puts(out, "\\u003c");
        from = i + 1;
    }
    ml_buf_put(out, json + from, n - from);
}

void jw_script_safe_from(ml_buf *b, size_t from)
{
    if (!b->p || from >= b->len) return;
    size_t lts = 0;
    for (const char *c = b->p + from, *end = b->p + b->len; (c = memchr(c, '<', (size_t)(end - c))); c++) lts++;
    if (!lts) return;
    size_t old = b->len;
    if (old + 5 * lts + 1 > b->cap) {
        size_t cap = b->cap * 2;
        while (cap < old + 5 * lts + 1) cap *= 2;
        b->p = ml_realloc(b->p, cap);
        b->cap = cap;
    }
    char *p = b->p;
    /* from the end down (each '<' found again by memrchr), the text after
     * each '<' to its place, one move a run: ahead of where it is read, 5
     * bytes further for each '<' before it */
    size_t end = old;
    for (size_t k = lts; k-- > 0;) {
        size_t at = (size_t)((const char *)memrchr(p + from, '<', end - from) - p);
        size_t shift = 5 * (k + 1);
        memmove(p + at + 1 + shift, p + at + 1, end - (at + 1));
        memcpy(p + at + shift - 5, "\\u003c", 6);
        end = at;
    }
    b->len = old + 5 * lts;
    b->p[b->len] = 0;
}

void jw_enter(jw *w, int depth, bool after_key)
{
    if (depth < 0) depth = 0;
    if (depth > JW_MAX_DEPTH - 1) depth = JW_MAX_DEPTH - 1;
    w->depth = depth;
    w->first[depth] = true;
    w->after_key = after_key;
}

void jw_resume(jw *w, int depth)
{
    jw_enter(w, depth, false);
    w->first[w->depth] = false;
}

bool jw_reopen(jw *w, ml_buf *b)
{
    if (!b->len || b->p[b->len - 1] != '}') return false;
    bool empty = b->len >= 2 && b->p[b->len - 2] == '{';
    b->p[--b->len] = 0;
    jw_init_buf(w, b, false);
    w->depth = 1;
    w->first[1] = empty;
    w->closer[1] = '}';
    return true;
}

void jw_init_in(jw *w, FILE *f, bool pretty, int depth, bool after_key)
{
    jw_init(w, f, pretty);
    jw_enter(w, depth, after_key);
}

void jw_paste_begin(jw *w)
{
    if (!w->first[w->depth]) put1(w, ',');
    w->first[w->depth] = false;
}

void jw_value_begin(jw *w) { before_value(w); }

void jw_paste(jw *w, const char *piece, size_t n)
{
    if (!n) return;
    jw_paste_begin(w);
    put(w, piece, n);
}
