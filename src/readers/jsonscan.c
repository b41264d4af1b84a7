/* jsonscan.c — streaming JSON tokenizer; see jsonscan.h. */
#include "jsonscan.h"
#include "byteblock.h"
#include "jsonplain.h"
#include "decimal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The buffer starts small (a fuzzer or a small file opens thousands of
 * scanners) and grows to BUF_STREAM once the input has filled it: then each
 * refill reads megabytes at a time. */
#define BUF_INITIAL ((size_t)64 << 10)
#define BUF_STREAM  ((size_t)256 << 10)
#define TOKEN_MAX   ((size_t)512 << 20)   /* one string or number may not exceed this (see value_max) */
#define PAD         64                    /* bytes after the data that 16-byte loads may touch */
_Static_assert(ML_SOURCE_MAP_PAD >= PAD, "a mapped input has the padding a buffer has");

enum { S_VALUE, S_KEY, S_AFTER, S_DONE, S_FAILED };
enum { CH_EOF = -1, CH_ERR = -2 };

struct js_scanner {
    ml_source *src;
    char *buf;
    size_t cap, pos, end;
    uint64_t base;            /* input offset of buf[0] */
    bool eof;
    size_t tok_start;         /* index in buf of the last token's text */
    size_t tok_len;
    uint64_t tok_off;         /* input offset of the last token */
    bool tok_escape;
    bool num_simple;          /* last number was -?digits[.digits] with <= 18 digits */
    bool num_neg;
    int num_frac;             /* digits after the point */
    uint64_t num_digits;      /* all digits as one integer */
    uint8_t stack[JS_MAX_DEPTH];
    int depth;
    int state;
    bool truncated;
    bool eof_after_comma;     /* the input ended where an array element was due */
    int cut_depth;            /* js_allow_cut(): depth of the array that may end early, 0 = none */
    bool cut_closed;          /* that array's ']' has been read ... */
    uint64_t cut_close_off;   /* ... at this offset */
    char err[ML_ERR_MAX];
    char *scratch;
    size_t scratch_cap;
    size_t peek_at;           /* js_peek_element(): where the element starts in buf */
    bool mapped;              /* buf is in the source's mapping (ml_source_map), all of the input */
    char *map_start;          /* mapped: where it begins */
    size_t map_done;          /* mapped: the pages before this offset were let go */
    size_t value_max;         /* the buffer never grows past this for one value: TOKEN_MAX or the source's limit */
};

/* The blanks and the number bytes, shared with the plain readers (jsonplain.h). */
const unsigned char js_wsch[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

/* Scanning helpers: the index of the first byte in [i, end) that matters, or
 * `end`.  With SSE2 they test 16 bytes at a time; the buffer has PAD bytes
 * after `end`, so a load may run past it (those bytes are ignored). */
#ifdef __SSE2__
/* A hit found past `end` (in the padding) means "not found before end". */
static inline size_t clamp_hit(size_t i, unsigned m, size_t end)
{
    size_t at = i + (size_t)__builtin_ctz(m);
    return at < end ? at : end;
}

/* First '"' or '\\'. */
static inline size_t find_quote_or_backslash(const char *b, size_t i, size_t end)
{
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
    for (; i < end; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(b + i));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));
        if (m) return clamp_hit(i, m, end);
    }
    return end;
}

/* First byte that is not a space, tab, CR or LF. */
static inline size_t find_non_ws(const char *b, size_t i, size_t end)
{
    for (; i < end; i += 16) {
        unsigned m = ~jp_ws_mask16(b + i) & 0xFFFFu;
        if (m) return clamp_hit(i, m, end);
    }
    return end;
}

/* First '"', '{', '}', '[' or ']'. */
static inline size_t find_structural(const char *b, size_t i, size_t end)
{
    const __m128i q = _mm_set1_epi8('"'), ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}');
    const __m128i os = _mm_set1_epi8('['), cs = _mm_set1_epi8(']');
    for (; i < end; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(b + i));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, ob)),
                                   _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, cb), _mm_cmpeq_epi8(v, os)),
                                                _mm_cmpeq_epi8(v, cs)));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) return clamp_hit(i, m, end);
    }
    return end;
}
#else
static inline size_t find_quote_or_backslash(const char *b, size_t i, size_t end)
{
    while (i < end && b[i] != '"' && b[i] != '\\') i++;
    return i;
}

static inline size_t find_non_ws(const char *b, size_t i, size_t end)
{
    while (i < end && js_wsch[(unsigned char)b[i]]) i++;
    return i;
}

static inline size_t find_structural(const char *b, size_t i, size_t end)
{
    while (i < end && !strchr("\"{}[]", b[i])) i++;
    return i;
}
#endif

/* One full-size buffer kept per thread between scanners: a directory of
 * many small ranks opens one scanner after another on each thread, and a
 * fresh buffer costs a page fault per 4 KiB filled (a third of the time of
 * a 2 MB rank).  Freed when the thread ends (buf_key's destructor). */
static __thread char *spare_buf;
static pthread_key_t buf_key;
static pthread_once_t buf_once = PTHREAD_ONCE_INIT;
static void buf_key_make(void) { pthread_key_create(&buf_key, free); }

js_scanner *js_open(ml_source *src)
{
    js_scanner *s = ml_calloc(1, sizeof *s);
    s->src = src;
    size_t len;
    char *mapped = ml_source_map(src, &len);
    if (mapped) { /* all of it at hand, read in place (more() only finds the end) */
        s->buf = s->map_start = mapped;
        s->cap = s->end = len;
        s->buf[len] = 0;
        s->mapped = true;
    } else if (spare_buf) {
        s->buf = spare_buf;
        spare_buf = NULL;
        pthread_setspecific(buf_key, NULL);
        s->cap = BUF_STREAM;
        memset(s->buf, 0, PAD);
    } else {
        s->cap = BUF_INITIAL;
        s->buf = ml_calloc(1, s->cap + PAD);
    }
    s->state = S_VALUE;
    size_t lim = ml_source_max_value(src);
    s->value_max = lim && lim < TOKEN_MAX ? lim : TOKEN_MAX;
    return s;
}

void js_allow_cut(js_scanner *s)
{
    s->cut_depth = s->depth;
    s->cut_closed = false;
}

js_scanner *js_open_inside(ml_source *src, uint64_t base, const char *stack)
{
    js_scanner *s = js_open(src);
    s->base = base;
    for (const char *k = stack; *k && s->depth < JS_MAX_DEPTH; k++) s->stack[s->depth++] = (uint8_t)*k;
    s->state = s->depth && s->stack[s->depth - 1] == 'o' ? S_KEY : S_VALUE;
    return s;
}

bool js_ended_after_comma(const js_scanner *s, const char *stack)
{
    size_t n = strlen(stack);
    return s->truncated && s->eof_after_comma && (size_t)s->depth == n && memcmp(s->stack, stack, n) == 0;
}

void js_close(js_scanner *s)
{
    if (!s) return;
    pthread_once(&buf_once, buf_key_make);
    if (s->mapped) ; /* the source's */
    else if (s->cap == BUF_STREAM && !spare_buf && pthread_setspecific(buf_key, s->buf) == 0) spare_buf = s->buf;
    else free(s->buf);
    free(s->scratch);
    free(s);
}

/* The scanner fails with "name: byte N: what".  Gzip garbage usually trips
 * the scanner before the inflater notices, so for gzip input the rest of the
 * stream is inflated first (with drain): if it is corrupt, that is the error
 * to report; if not, the position is named as an uncompressed byte. */
static void fail_with(js_scanner *s, uint64_t off, const char *what, bool drain)
{
    if (s->state == S_FAILED) return;
    s->state = S_FAILED;
    const char *name = ml_source_name(s->src);
    bool gzip = ml_source_is_gzip(s->src);
    ml_err gz;
    if (gzip && drain && ml_source_drain(s->src, &gz) < 0) snprintf(s->err, sizeof s->err, "%s", gz.msg);
    else snprintf(s->err, sizeof s->err, "%s: %sbyte %llu: %s", name, gzip ? "uncompressed " : "",
                  (unsigned long long)off, what);
}

static js_tok fail_at(js_scanner *s, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static js_tok fail_at(js_scanner *s, uint64_t off, const char *fmt, ...)
{
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fail_with(s, off, what, true);
    return JS_ERROR;
}

/* Makes room for at least one more byte after s->end (room the source can
 * fill), growing the buffer when it is full or once the input has proved
 * not to be small.  0, or -1 when a single token is too long. */
static int make_room(js_scanner *s)
{
    size_t want = s->cap;
    if (s->end == s->cap) want = s->cap * 2;
    else if (s->cap < BUF_STREAM && s->base >= s->cap) want = s->cap * 4 < BUF_STREAM ? s->cap * 4 : BUF_STREAM;
    if (want == s->cap) return 0;
    if (s->end == s->cap && s->cap >= s->value_max) {
        /* The buffer holds one value that goes on: refused now, without
         * reading the rest (nor inflating it: the gzip is intact so far). */
        char what[120];
        if (s->value_max >= (1u << 20)) snprintf(what, sizeof what, "a single value is longer than %zu MiB", s->value_max >> 20);
        else snprintf(what, sizeof what, "a single value is longer than %zu bytes", s->value_max);
        const char *hint = ml_source_value_hint(s->src);
        if (hint && s->value_max < TOKEN_MAX) snprintf(what + strlen(what), sizeof what - strlen(what), " (%s)", hint);
        fail_with(s, s->base, what, false);
        return -1;
    }
    /* Not cleared: more() clears the PAD bytes after the data at each read,
     * all that the 16-byte scans may load past it.  Clearing all of it cost a
     * page fault per 4 KiB of a grown buffer, most of the time of a small
     * file (one rank of many). */
    if (want > s->value_max && s->value_max > s->cap) want = s->value_max;
    s->buf = ml_realloc(s->buf, want + PAD);
    s->cap = want;
    return 0;
}

/* Reads more input, first dropping buf[0..keep) (indices >= keep shift down by
 * keep).  Returns bytes added, 0 at end of input, -1 on error. */
static ssize_t more(js_scanner *s, size_t keep)
{
    if (s->state == S_FAILED) return -1;
    if (s->eof) return 0;
    if (s->mapped) { /* as a buffer would: drop keep bytes, then find the end */
        s->buf += keep;
        s->cap -= keep;
        s->end -= keep;
        s->pos -= keep;
        s->base += keep;
        s->eof = true;
        return 0;
    }
    if (keep > 0) {
        memmove(s->buf, s->buf + keep, s->end - keep);
        s->end -= keep;
        s->pos -= keep;
        s->base += keep;
    }
    if (make_room(s) < 0) return -1;
    ml_err e;
    ssize_t r = ml_source_read(s->src, s->buf + s->end, s->cap - s->end, &e);
    if (r < 0) {
        snprintf(s->err, sizeof s->err, "%s", e.msg);
        s->state = S_FAILED;
        return -1;
    }
    if (r == 0) s->eof = true;
    s->end += (size_t)r;
    /* a sentinel: no scan (digits, literals) runs on past the data; the
     * 16-byte scans may load up to PAD bytes past it, never written else */
    memset(s->buf + s->end, 0, PAD);
    return r;
}

/* Next non-whitespace byte (not consumed), CH_EOF or CH_ERR. */
static inline int peek_nonws(js_scanner *s)
{
    for (;;) {
        if (s->pos < s->end) {
            unsigned char c = (unsigned char)s->buf[s->pos];
            if (!js_wsch[c]) return c;
            c = (unsigned char)s->buf[s->pos + 1]; /* a single space is the usual case */
            if (!js_wsch[c] && s->pos + 1 < s->end) return (unsigned char)s->buf[++s->pos];
            s->pos = find_non_ws(s->buf, s->pos + 1, s->end);
            if (s->pos < s->end) return (unsigned char)s->buf[s->pos];
        }
        ssize_t r = more(s, s->pos);
        if (r <= 0) return r == 0 ? CH_EOF : CH_ERR;
    }
}

/* Lexes the string whose opening quote is at s->pos. */
static int lex_string(js_scanner *s)
{
    size_t quote = s->pos, i = quote + 1;
    bool escaped = false;
    for (;;) {
        i = find_quote_or_backslash(s->buf, i, s->end);
        if (i + 1 < s->end && s->buf[i] == '\\') { /* an escape: skip the escaped byte */
            escaped = true;
            i += 2;
            continue;
        }
        if (i < s->end && s->buf[i] == '"') break;
        /* The string goes on past the buffer (or a backslash ends it): read more. */
        ssize_t r = more(s, quote);
        if (r < 0) return -1;
        i -= quote;
        quote = 0;
        if (r == 0) {
            fail_at(s, s->base, "the file ends inside a string");
            return -1;
        }
    }
    s->tok_start = quote + 1;
    s->tok_len = i - quote - 1;
    s->tok_off = s->base + quote;
    s->tok_escape = escaped;
    s->pos = i + 1;
    return 0;
}

const unsigned char js_numch[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1,
    /* NaN, Infinity (Python's json writes them) */
    ['N'] = 1, ['a'] = 1, ['I'] = 1, ['n'] = 1, ['f'] = 1, ['i'] = 1, ['t'] = 1, ['y'] = 1};

/* The value of 8 ASCII digits at p, or UINT64_MAX if they are not all digits
 * (SWAR: all eight bytes decoded in a few multiplications). */
static inline uint64_t eight_digits(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    if (jp_swar_nondigits(x)) return UINT64_MAX;
    return jp_swar_value8(x - 0x3030303030303030ull);
}

/* Lexes a number, decoding the common shape -?digits[.digits] on the way so
 * that js_number() needs no second pass. */
static int lex_number(js_scanner *s)
{
    size_t start = s->pos, i;
    for (;;) {
        i = start;
        const char *b = s->buf;
        bool neg = b[i] == '-';
        i += neg;
        uint64_t v = 0;
        int ndig = 0, frac = 0;
        uint64_t eight;
        while (ndig <= 10 && (eight = eight_digits(b + i)) != UINT64_MAX) v = v * 100000000 + eight, i += 8, ndig += 8;
        while ((unsigned)(b[i] - '0') < 10) v = v * 10 + (uint64_t)(b[i++] - '0'), ndig++;
        if (b[i] == '.') {
            i++;
            while ((unsigned)(b[i] - '0') < 10) v = v * 10 + (uint64_t)(b[i++] - '0'), ndig++, frac++;
        }
        bool simple = ndig > 0 && ndig <= 18 && !js_numch[(unsigned char)b[i]];
        while (i < s->end && js_numch[(unsigned char)b[i]]) i++;
        if (i < s->end || s->eof) {
            s->num_simple = simple;
            s->num_neg = neg;
            s->num_frac = frac;
            s->num_digits = v;
            break;
        }
        /* The number may go on past the buffer: read more and lex it again. */
        ssize_t r = more(s, start);
        if (r < 0) return -1;
        start = 0;
    }
    s->tok_start = start;
    s->tok_len = i - start;
    s->tok_off = s->base + start;
    s->tok_escape = false;
    s->pos = i;
    const char *t = s->buf + start;
    size_t n = s->tok_len;
    bool ok = (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) || (n == 3 && !memcmp(t, "NaN", 3)) ||
              (n == 8 && !memcmp(t, "Infinity", 8));
    if (ok && t[0] == '-' && !(n > 1 && t[1] >= '0' && t[1] <= '9') && !(n == 9 && !memcmp(t, "-Infinity", 9)))
        ok = false;
    if (!ok) {
        fail_at(s, s->tok_off, "unexpected '%.*s'", (int)(n > 20 ? 20 : n), t);
        return -1;
    }
    return 0;
}

static const uint64_t powers_of_ten[19] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
    10000000ull, 100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull};

int js_number(const js_scanner *s, int scale, int64_t *out)
{
    if (s->num_simple && scale >= 0 && scale <= 18) {
        /* value * 10^scale = digits * 10^(scale - frac), truncated toward zero;
         * at most 18 digits, so frac <= 18 and the divisor is in the table */
        int shift = scale - s->num_frac;
        unsigned __int128 v = s->num_digits;
        if (shift >= 0) v *= powers_of_ten[shift];
        else v /= powers_of_ten[-shift];
        if (v > (unsigned __int128)INT64_MAX) return ML_PARSE_RANGE;
        *out = s->num_neg ? -(int64_t)v : (int64_t)v;
        return 0;
    }
    return ml_parse_scaled(s->buf + s->tok_start, s->tok_len, scale, out);
}

static js_tok lex_literal(js_scanner *s)
{
    static const struct { const char *w; js_tok t; } lits[] = {
        {"true", JS_TRUE}, {"false", JS_FALSE}, {"null", JS_NULL}};
    while (s->end - s->pos < 5 && !s->eof)
        if (more(s, s->pos) < 0) return JS_ERROR;
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(lits[k].w);
        if (s->end - s->pos >= n && memcmp(s->buf + s->pos, lits[k].w, n) == 0) {
            s->tok_off = s->base + s->pos;
            s->pos += n;
            return lits[k].t;
        }
    }
    char c = s->buf[s->pos];
    if (c == 'N' || c == 'I') return lex_number(s) < 0 ? JS_ERROR : JS_NUMBER;
    return fail_at(s, s->base + s->pos, "unexpected character '%c'", c);
}

static inline void value_done(js_scanner *s) { s->state = s->depth ? S_AFTER : S_DONE; }

static inline js_tok open_container(js_scanner *s, uint8_t kind)
{
    if (s->depth >= JS_MAX_DEPTH)
        return fail_at(s, s->base + s->pos, "nesting deeper than %d levels", JS_MAX_DEPTH);
    s->tok_off = s->base + s->pos;
    s->stack[s->depth++] = kind;
    s->pos++;
    s->state = kind == 'o' ? S_KEY : S_VALUE;
    return kind == 'o' ? JS_OBJECT : JS_ARRAY;
}

static inline js_tok close_container(js_scanner *s)
{
    s->tok_off = s->base + s->pos;
    if (s->depth == s->cut_depth && !s->cut_closed) {
        s->cut_closed = true;
        s->cut_close_off = s->tok_off;
    }
    uint8_t kind = s->stack[--s->depth];
    s->pos++;
    value_done(s);
    return kind == 'o' ? JS_OBJECT_END : JS_ARRAY_END;
}

/* The input ended before the value was complete: acceptable only inside the
 * array of js_allow_cut() (between elements), or right after it. */
static js_tok end_of_input(js_scanner *s, const char *where)
{
    bool in_list = s->cut_depth && !s->cut_closed && s->depth == s->cut_depth;
    bool after_list = s->cut_depth && s->cut_closed && s->depth == s->cut_depth - 1 && s->tok_off == s->cut_close_off;
    if (in_list || after_list) {
        s->eof_after_comma = in_list && s->state == S_VALUE;
        s->truncated = true;
        s->state = S_DONE;
        return JS_END;
    }
    if (s->depth == 0 && s->state == S_VALUE) return fail_at(s, s->base + s->pos, "the input is empty");
    return fail_at(s, s->base + s->pos, "the file ends %s (truncated?)", where);
}

/* A UTF-8 byte order mark at the very start: skipped.  Whether it was one. */
static bool skip_bom(js_scanner *s)
{
    if (s->base + s->pos != 0) return false;
    while (s->end - s->pos < 3 && !s->eof)
        if (more(s, s->pos) < 0) return false;
    if (s->end - s->pos < 3 || memcmp(s->buf + s->pos, "\xef\xbb\xbf", 3) != 0) return false;
    s->pos += 3;
    return true;
}

js_tok js_next(js_scanner *s)
{
    for (;;) {
        int c;
        switch (s->state) {
        case S_FAILED:
            return JS_ERROR;
        case S_DONE:
            c = peek_nonws(s);
            if (c == CH_EOF || s->truncated) return JS_END;
            if (c == CH_ERR) return JS_ERROR;
            return fail_at(s, s->base + s->pos, "unexpected data after the end of the JSON value");
        case S_AFTER:
            c = peek_nonws(s);
            if (c == ',') {
                s->pos++;
                s->state = s->stack[s->depth - 1] == 'o' ? S_KEY : S_VALUE;
                continue;
            }
            if (c == '}' && s->stack[s->depth - 1] == 'o') return close_container(s);
            if (c == ']' && s->stack[s->depth - 1] == 'a') return close_container(s);
            if (c == CH_EOF) return end_of_input(s, "inside an object");
            if (c == CH_ERR) return JS_ERROR;
            return fail_at(s, s->base + s->pos, "expected ',' or '%c', found '%c'",
                           s->stack[s->depth - 1] == 'o' ? '}' : ']', c);
        case S_KEY:
            c = peek_nonws(s);
            if (c == '}') return close_container(s);
            if (c == '"') {
                if (lex_string(s) < 0) return JS_ERROR;
                /* The colon; keep the key text in the buffer while looking for it. */
                for (;;) {
                    while (s->pos < s->end && js_wsch[(unsigned char)s->buf[s->pos]]) s->pos++;
                    if (s->pos < s->end) break;
                    size_t keep = s->tok_start - 1;
                    ssize_t r = more(s, keep);
                    if (r < 0) return JS_ERROR;
                    s->tok_start -= keep;
                    if (r == 0) return fail_at(s, s->base + s->pos, "the file ends after a key (truncated?)");
                }
                if (s->buf[s->pos] != ':')
                    return fail_at(s, s->base + s->pos, "expected ':' after a key, found '%c'", s->buf[s->pos]);
                s->pos++;
                s->state = S_VALUE;
                return JS_KEY;
            }
            if (c == CH_EOF) return end_of_input(s, "inside an object");
            if (c == CH_ERR) return JS_ERROR;
            return fail_at(s, s->base + s->pos, "expected a key string, found '%c'", c);
        case S_VALUE:
            c = peek_nonws(s);
            switch (c) {
            case '{': return open_container(s, 'o');
            case '[': return open_container(s, 'a');
            case '"':
                if (lex_string(s) < 0) return JS_ERROR;
                value_done(s);
                return JS_STRING;
            case ']':
                if (s->depth && s->stack[s->depth - 1] == 'a') return close_container(s);
                return fail_at(s, s->base + s->pos, "unexpected ']'");
            case 't': case 'f': case 'n': case 'N': case 'I': {
                js_tok t = lex_literal(s);
                if (t != JS_ERROR) value_done(s);
                return t;
            }
            case CH_EOF: return end_of_input(s, "where a value is due");
            case CH_ERR: return JS_ERROR;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    if (lex_number(s) < 0) return JS_ERROR;
                    value_done(s);
                    return JS_NUMBER;
                }
                if (c == 0xEF && skip_bom(s)) continue;
                if (s->state == S_FAILED) return JS_ERROR;
                return fail_at(s, s->base + s->pos, "unexpected character '%c'", c);
            }
        }
    }
}

#ifdef __SSE2__
/* skip_nested()'s inner loop 64 bytes at a time while a whole block is
 * buffered: quotes, backslashes and brackets as bit masks, strings masked out
 * by a prefix XOR of the quotes, and only the brackets outside strings
 * visited.  A block is taken up to its first backslash (escapes are rare: the
 * string around one is handed to lex_string(), as is a string that runs past
 * the block), so the checks and the result are skip_nested()'s exactly.
 * Returns 1 when the container closed (s->pos past it), 0 when fewer than 64
 * bytes are left (s->pos where to go on), -1 on error. */
static int skip_blocks(js_scanner *s, char *closer, int *depth_io)
{
    int depth = *depth_io;
    size_t i = s->pos;
    while (i + 64 <= s->end) {
        const char *b = s->buf + i;
        uint64_t bs = ml_block_eq(b, '\\', 0);
        unsigned limit = bs ? (unsigned)__builtin_ctzll(bs) : 64;
        uint64_t valid = limit == 64 ? ~0ull : (1ull << limit) - 1;
        uint64_t quotes = ml_block_eq(b, '"', 0) & valid;
        uint64_t outside = ~ml_block_odd_prefix(quotes);
        uint64_t br = (ml_block_eq(b, '{', 0x20) | ml_block_eq(b, '}', 0x20)) & outside & valid;
        while (br) {
            unsigned k = (unsigned)__builtin_ctzll(br);
            br &= br - 1;
            char c = b[k];
            if (c == '{' || c == '[') {
                if (depth == JS_MAX_DEPTH) {
                    fail_at(s, s->base + i + k, "nesting deeper than %d levels", JS_MAX_DEPTH);
                    return -1;
                }
                closer[depth++] = (char)(c + 2);
            } else if (c != closer[--depth]) {
                fail_at(s, s->base + i + k, "expected '%c', found '%c'", closer[depth], c);
                return -1;
            } else if (depth == 0) {
                s->pos = i + k + 1;
                return 1;
            }
        }
        if (__builtin_popcountll(quotes) & 1) {
            /* A string open at `limit`: lex it whole from its opening quote. */
            s->pos = i + 63 - (unsigned)__builtin_clzll(quotes);
            if (lex_string(s) < 0) return -1;
            i = s->pos;
        } else {
            i += limit + (limit < 64); /* a backslash outside strings is skipped, as below */
        }
    }
    s->pos = i;
    *depth_io = depth;
    return 0;
}
#endif

/* Skips bytes until the container opened by `open` ('{' or '[', already
 * consumed) is closed, checking that every closing bracket matches. */
static int skip_nested(js_scanner *s, char open)
{
    char closer[JS_MAX_DEPTH];   /* the bracket each open container expects */
    int depth = 0;
    closer[depth++] = (char)(open + 2); /* '{' + 2 = '}', '[' + 2 = ']' */
    for (;;) {
#ifdef __SSE2__
        int done = skip_blocks(s, closer, &depth);
        if (done) return done < 0 ? -1 : 0;
#endif
        /* Fewer than 64 bytes buffered (or no SSE2): one structural byte at a time. */
        size_t i = s->pos;
        while ((i = find_structural(s->buf, i, s->end)) < s->end) {
            char c = s->buf[i];
            if (c == '"') {
                s->pos = i;
                if (lex_string(s) < 0) return -1;
                i = s->pos;
#ifdef __SSE2__
                if (s->end - i >= 64) break; /* the string brought more input: back to blocks */
#endif
                continue;
            }
            i++;
            if (c == '{' || c == '[') {
                if (depth == JS_MAX_DEPTH) {
                    fail_at(s, s->base + i - 1, "nesting deeper than %d levels", JS_MAX_DEPTH);
                    return -1;
                }
                closer[depth++] = (char)(c + 2);
            } else if (c != closer[--depth]) {
                fail_at(s, s->base + i - 1, "expected '%c', found '%c'", closer[depth], c);
                return -1;
            } else if (depth == 0) {
                s->pos = i;
                return 0;
            }
        }
        s->pos = i;
        if (i < s->end) continue;
        ssize_t r = more(s, i);
        if (r < 0) return -1;
        if (r == 0) {
            fail_at(s, s->base + s->pos, "the file ends inside a value (truncated?)");
            return -1;
        }
    }
}

int js_skip(js_scanner *s)
{
    if (s->state != S_VALUE) {
        /* Not at a value: consume whatever the next token is. */
        return js_next(s) == JS_ERROR ? -1 : 0;
    }
    int c = peek_nonws(s);
    if (c == '{' || c == '[') {
        if (s->depth >= JS_MAX_DEPTH) {
            fail_at(s, s->base + s->pos, "nesting deeper than %d levels", JS_MAX_DEPTH);
            return -1;
        }
        s->tok_off = s->base + s->pos;
        s->pos++;
        if (skip_nested(s, (char)c) < 0) return -1;
        value_done(s);
        return 0;
    }
    /* A scalar; or ']' after a trailing comma, or the end of a cut input: no value. */
    return js_next(s) == JS_ERROR ? -1 : 0;
}

/* ---- fused fast paths for the importers' inner loops ----
 * They handle the common case straight from the buffer when enough bytes are
 * buffered (so no token can be cut off), and otherwise defer to js_next(),
 * which knows every rule.  The sentinel byte at buf[end] stops the
 * whitespace loops (jp_ws, jsonplain.h). */
#define FAST_WINDOW 256

int js_key(js_scanner *s, const char **key, size_t *len)
{
    if ((s->state == S_AFTER || s->state == S_KEY) && s->end - s->pos >= FAST_WINDOW) {
        const char *b = s->buf;
        size_t p = jp_ws(b, s->pos);
        if (s->state == S_AFTER) {
            if (b[p] != ',') goto slow;
            p = jp_ws(b, p + 1);
        }
        if (b[p] != '"') goto slow;
        size_t q = find_quote_or_backslash(b, p + 1, s->end);
        if (q >= s->end || b[q] != '"') goto slow;
        size_t r = jp_ws(b, q + 1);
        if (r >= s->end || b[r] != ':') goto slow;
        s->tok_start = p + 1;
        s->tok_len = q - p - 1;
        s->tok_off = s->base + p;
        s->tok_escape = false;
        s->pos = r + 1;
        s->state = S_VALUE;
        *key = b + p + 1;
        *len = q - p - 1;
        return 1;
    }
slow:;
    js_tok t = js_next(s);
    if (t == JS_KEY) {
        *key = js_text(s, len);
        return 1;
    }
    if (t == JS_OBJECT_END || t == JS_END) return 0; /* JS_END: a cut the caller allowed */
    if (t != JS_ERROR) fail_at(s, s->tok_off, "expected a key");
    return -1;
}

/* At a value: the first byte of it, past whitespace, or -1 to take the slow path. */
static inline int fast_value_start(js_scanner *s)
{
    if (s->state != S_VALUE || s->end - s->pos < FAST_WINDOW) return -1;
    s->pos = jp_ws(s->buf, s->pos);
    return s->pos < s->end ? (unsigned char)s->buf[s->pos] : -1;
}

/* Skips a value of an unwanted type whose first token was just read. */
static int skip_after_first(js_scanner *s, js_tok t)
{
    if (t == JS_OBJECT || t == JS_ARRAY) return js_skip_rest(s) < 0 ? -1 : 0;
    return t == JS_ERROR ? -1 : 0;
}

/* The first token of a value, straight from the buffer for strings and numbers. */
static js_tok value_start(js_scanner *s)
{
    int c = fast_value_start(s);
    if (c == '"') {
        if (lex_string(s) < 0) return JS_ERROR;
        value_done(s);
        return JS_STRING;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        if (lex_number(s) < 0) return JS_ERROR;
        value_done(s);
        return JS_NUMBER;
    }
    return js_next(s);
}

/* ml_parse_scaled()'s answer as js_value_number()'s. */
static int number_result(int parsed) { return parsed == 0 ? 1 : parsed == ML_PARSE_RANGE ? JS_NUM_RANGE : 0; }

int js_value_number(js_scanner *s, int scale, int64_t *out)
{
    js_tok t = value_start(s);
    if (t == JS_NUMBER) return number_result(js_number(s, scale, out));
    if (t == JS_STRING) {
        /* Numbers written as strings ("ts": "1736408883694624.810\t"): trim blanks. */
        const char *txt = s->buf + s->tok_start;
        size_t n = s->tok_len;
        while (n && (txt[n - 1] == '\t' || txt[n - 1] == ' ')) n--;
        while (n && (txt[0] == '\t' || txt[0] == ' ')) txt++, n--;
        return number_result(ml_parse_scaled(txt, n, scale, out));
    }
    return skip_after_first(s, t);
}

int js_value_string(js_scanner *s, const char **text, size_t *len)
{
    js_tok t = value_start(s);
    if (t != JS_STRING) return skip_after_first(s, t);
    *text = js_unescape(s, len);
    return 1;
}

int js_value_scalar_text(js_scanner *s, const char **text, size_t *len)
{
    js_tok t = value_start(s);
    if (t != JS_STRING && t != JS_NUMBER) return skip_after_first(s, t);
    *text = js_text(s, len);
    return 1;
}

const char *js_peek_value(js_scanner *s, size_t *avail)
{
    if (fast_value_start(s) < 0) return NULL;
    *avail = s->end - s->pos;
    return s->buf + s->pos;
}

void js_consume_value(js_scanner *s, size_t n)
{
    s->tok_off = s->base + s->pos;
    s->pos += n;
    value_done(s);
}

/* A mapped input's pages are let go behind the elements every this many
 * bytes (they count in the RSS). */
#define MAP_RELEASE ((size_t)1 << 20)

/* js_peek_element() tops the buffer up to this much ahead (a quarter of a
 * small buffer), so that the events it hands out are nearly always whole
 * in it. */
#define PEEK_AHEAD ((size_t)16 << 10)

const char *js_peek_element(js_scanner *s, size_t *avail)
{
    if ((s->state != S_VALUE && s->state != S_AFTER) || !s->depth || s->stack[s->depth - 1] != 'a') return NULL;
    if (s->mapped) { /* between elements: no token lies before pos */
        size_t at = (size_t)(s->buf - s->map_start) + s->pos;
        if (at - s->map_done >= MAP_RELEASE) {
            ml_source_map_done(s->src, at);
            s->map_done = at;
        }
    }
    size_t ahead = s->cap / 4 < PEEK_AHEAD ? s->cap / 4 : PEEK_AHEAD;
    if (s->end - s->pos < ahead && !s->eof && more(s, s->pos) < 0) return NULL;
    const char *b = s->buf;
    size_t p = find_non_ws(b, s->pos, s->end);
    if (s->state == S_AFTER) {
        if (p >= s->end || b[p] != ',') return NULL;
        p = find_non_ws(b, p + 1, s->end);
    }
    if (p >= s->end || b[p] == ']') return NULL;
    s->peek_at = p;
    *avail = s->end - p;
    return b + p;
}

void js_consume_element(js_scanner *s, size_t n)
{
    s->tok_off = s->base + s->peek_at;
    s->pos = s->peek_at + n;
    s->state = S_AFTER;
}

int js_skip_rest(js_scanner *s)
{
    if (s->depth == 0) return 0;
    if (skip_nested(s, s->stack[s->depth - 1] == 'o' ? '{' : '[') < 0) return -1;
    s->depth--;
    value_done(s);
    return 0;
}

const char *js_text(const js_scanner *s, size_t *len)
{
    *len = s->tok_len;
    return s->buf + s->tok_start;
}

bool js_has_escape(const js_scanner *s) { return s->tok_escape; }

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 63)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 63)); o[2] = (char)(0x80 | (cp & 63));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 63));
    o[2] = (char)(0x80 | ((cp >> 6) & 63)); o[3] = (char)(0x80 | (cp & 63));
    return 4;
}

static int hex4(const char *p, size_t avail, uint32_t *out)
{
    if (avail < 4) return -1;
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

const char *js_unescape(js_scanner *s, size_t *len)
{
    const char *t = s->buf + s->tok_start;
    size_t n = s->tok_len;
    if (!s->tok_escape) { *len = n; return t; }
    if (s->scratch_cap < n + 1) {
        s->scratch_cap = n + 1;
        s->scratch = ml_realloc(s->scratch, s->scratch_cap);
    }
    char *o = s->scratch;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] != '\\' || i + 1 == n) { o[w++] = t[i]; continue; }
        char c = t[++i];
        switch (c) {
        case 'n': o[w++] = '\n'; break;
        case 't': o[w++] = '\t'; break;
        case 'r': o[w++] = '\r'; break;
        case 'b': o[w++] = '\b'; break;
        case 'f': o[w++] = '\f'; break;
        case 'u': {
            uint32_t cp, lo;
            if (hex4(t + i + 1, n - i - 1, &cp) < 0) { o[w++] = '\\'; o[w++] = 'u'; break; }
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 2 < n && t[i + 1] == '\\' && t[i + 2] == 'u' &&
                hex4(t + i + 3, n - i - 3, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            } else if (cp >= 0xD800 && cp < 0xE000) {
                cp = 0xFFFD; /* a lone surrogate */
            }
            /* \uXXXX (6 bytes) always encodes in at most 4 bytes of UTF-8 */
            w += put_utf8(o + w, cp);
            break;
        }
        default: o[w++] = c; /* \" \\ \/ and unknown escapes */
        }
    }
    o[w] = 0;
    *len = w;
    return o;
}

int js_depth(const js_scanner *s) { return s->depth; }
bool js_input_ended(const js_scanner *s) { return s->eof; }
bool js_truncated(const js_scanner *s) { return s->truncated; }
uint64_t js_offset(const js_scanner *s) { return s->tok_off; }
const char *js_error(const js_scanner *s) { return s->err; }

static int fail_into(js_scanner *s, ml_err *e, uint64_t off, const char *fmt, va_list ap)
{
    char what[300];
    vsnprintf(what, sizeof what, fmt, ap);
    fail_with(s, off, what, true);
    return ml_fail(e, "%s", s->err);
}

int js_fail(js_scanner *s, ml_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = fail_into(s, e, s->tok_off, fmt, ap);
    va_end(ap);
    return rc;
}

int js_fail_at(js_scanner *s, ml_err *e, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = fail_into(s, e, off, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- the plain readers' container skip (jsonplain.h) ----
 * js_skip() works on the refillable buffer and reports what is wrong; this
 * one works on a value wholly in a buffer (js_peek_value) and only says
 * whether it is well formed, leaving errors to js_skip(). */

/* The container at p[i] ('{' or '['), skipped byte by byte: the index
 * after it, or 0. */
static size_t plain_bytewise(const char *p, size_t i, size_t n)
{
    char c = p[i];
    char closer[64];
    int depth = 0;
    closer[depth++] = (char)(c + 2);
    for (i++; i < n; i++) {
        i = jp_find_stop(p, i, true);
        if (i >= n) return 0;
        c = p[i];
        if (c == '"') {
            while ((i = jp_find_stop(p, i + 1, false)) < n && p[i] == '\\') i++; /* past each escaped byte */
            if (i >= n) return 0;
        } else if (c == '[' || c == '{') {
            if (depth == (int)sizeof closer) return 0;
            closer[depth++] = (char)(c + 2);
        } else if (c == ']' || c == '}') {
            if (c != closer[--depth]) return 0;
            if (depth == 0) return i + 1;
        }
    }
    return 0;
}


#ifdef __SSE2__
/* The container at p[i] ('{' or '['), skipped as js_skip() does (every
 * closing bracket must match its opening one; strings are passed over), 64
 * bytes at a time: quotes and brackets as bit masks (eq64: bit k = whether
 * byte k of the block is c, see byteblock.h), strings masked out by the
 * quotes' odd prefix, and only the brackets outside them visited, their
 * kinds kept as a stack of bits (64 levels; deeper, or a backslash, and the
 * bytes are read one by one).  The index after it, or 0.  Inlined into one
 * function per instruction set, each with its own eq64. */
typedef uint64_t block_eq_fn(const char *b, char c, char fold);
static inline __attribute__((always_inline)) size_t plain_blocks(const char *p, size_t i, size_t n, block_eq_fn *eq64)
{
    uint64_t kinds = 0, inside = 0; /* kinds: bit set = '['; inside: the block before ended in a string */
    unsigned depth = 0;
    char last[64];
    for (size_t j = i; j < n; j += 64) {
        const char *b = p + j;
        if (n - j < 64) { /* the end of the buffer: its bytes, then NULs */
            memset(last, 0, sizeof last);
            memcpy(last, b, n - j);
            b = last;
        }
        if (eq64(b, '\\', 0)) return plain_bytewise(p, i, n);
        uint64_t str = ml_block_odd_prefix(eq64(b, '"', 0)) ^ inside;
        inside = (uint64_t)((int64_t)str >> 63);
        uint64_t br = (eq64(b, '{', 0x20) | eq64(b, '}', 0x20)) & ~str;
        while (br) {
            unsigned k = (unsigned)__builtin_ctzll(br);
            br &= br - 1;
            char c = b[k];
            if (c == '{' || c == '[') {
                if (depth == 64) return plain_bytewise(p, i, n);
                kinds = kinds << 1 | (c == '[');
                depth++;
            } else {
                if ((kinds & 1) != (c == ']')) return 0;
                kinds >>= 1;
                if (--depth == 0) return j + k + 1;
            }
        }
    }
    return 0;
}
#endif

static size_t plain_container_sse2(const char *p, size_t i, size_t n)
{
#ifdef __SSE2__
    return plain_blocks(p, i, n, ml_block_eq);
#else
    return plain_bytewise(p, i, n);
#endif
}

#ifdef ML_HAVE_BLOCK_AVX2
__attribute__((target("avx2"))) static size_t plain_container_avx2(const char *p, size_t i, size_t n)
{
    return plain_blocks(p, i, n, ml_block_eq_avx2);
}
#endif

size_t js_plain_skip_container(const char *p, size_t i, size_t n)
{
#ifdef ML_HAVE_BLOCK_AVX2
    /* asked each time (a read of libgcc's CPU model, set once at start-up):
     * a cached answer would be state written by both parser threads */
    if (__builtin_cpu_supports("avx2")) return plain_container_avx2(p, i, n);
#endif
    return plain_container_sse2(p, i, n);
}
