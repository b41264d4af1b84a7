/*
 * textwidth.c — terminal width and ellipsis fitting (textwidth.h).
 */
#include "textwidth.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "utf8.h"

int ml_term_width(FILE *f)
{
    int fd = fileno(f);
    struct winsize ws;
    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    if (c && *c) {
        char *end;
        long v = strtol(c, &end, 10);
        if (!*end && v > 0 && v < 100000) return (int)v;
    }
    return 0;
}

static int is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

/* The escape of the byte or sequence at u (k: its UTF-8 length, 0 when it
 * is none) into out (at least 7 bytes), or 0 when it is shown as is. */
static size_t escape_of(const unsigned char *u, size_t k, char *out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char c = *u;
    if (k == 1 && c >= 0x20 && c != 0x7f) return 0;
    if (k == 2 && ml_utf8_decode(u, 2) >= 0xA0) return 0;
    if (k > 2) return 0;
    if (k == 2) { /* a C1 control */
        unsigned cp = ml_utf8_decode(u, 2);
        memcpy(out, "\\u00", 4);
        out[4] = hex[cp >> 4];
        out[5] = hex[cp & 15];
        return 6;
    }
    const char *named = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == 0x1b ? "\\e" : c == 0x07 ? "\\a" : NULL;
    if (named) {
        memcpy(out, named, 2);
        return 2;
    }
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    return 4;
}

int ml_text_unsafe(const char *s)
{
    char tmp[8];
    for (const unsigned char *u = (const unsigned char *)s; *u;) {
        if (*u >= 0x20 && *u < 0x7f) { u++; continue; }
        size_t k = ml_utf8_seq(u, 4);
        if (escape_of(u, k, tmp)) return 1;
        u += k;
    }
    return 0;
}

const char *ml_text_safe(const char *s, char *buf, size_t cap)
{
    if (!ml_text_unsafe(s) || cap < 4) return s;
    size_t w = 0;
    char tmp[8];
    for (const unsigned char *u = (const unsigned char *)s; *u;) {
        size_t k = ml_utf8_seq(u, 4);
        size_t e = escape_of(u, k, tmp);
        const char *piece = e ? tmp : (const char *)u;
        size_t len = e ? e : k;
        u += k ? k : 1;
        /* room for this piece, and for "…" after it unless it is the last */
        if (w + len + (*u ? 3 : 0) + 1 > cap) {
            memcpy(buf + w, "\xE2\x80\xA6", 3); /* (the pieces before left room for it) */
            w += 3;
            break;
        }
        memcpy(buf + w, piece, len);
        w += len;
    }
    buf[w] = 0;
    return buf;
}

void ml_put_text(FILE *f, const char *s)
{
    if (!ml_text_unsafe(s)) {
        fputs(s, f);
        return;
    }
    size_t cap = 4 * strlen(s) + 1;
    char *buf = malloc(cap);
    fputs(buf ? ml_text_safe(s, buf, cap) : "?", f);
    free(buf);
}

static int cols_of(const char *s)
{
    int n = 0;
    for (; *s; s++)
        if (!is_cont((unsigned char)*s)) n++;
    return n;
}

int ml_text_cols(const char *s)
{
    if (!ml_text_unsafe(s)) return cols_of(s);
    size_t cap = 4 * strlen(s) + 1;
    char *buf = malloc(cap);
    int n = buf ? cols_of(ml_text_safe(s, buf, cap)) : cols_of(s);
    free(buf);
    return n;
}

/* Byte offset after the first k code points of s. */
static size_t head_bytes(const char *s, int k)
{
    size_t i = 0;
    while (s[i] && k > 0) {
        i++;
        while (s[i] && is_cont((unsigned char)s[i])) i++;
        k--;
    }
    return i;
}

/* ml_fit of text that needs no escape. */
static const char *fit_safe(const char *s, int cols, int middle, char *buf, size_t cap)
{
    if (cols <= 0) return s;
    int have = cols_of(s);
    if (have <= cols) return s;
    if (cols < 2) cols = 2;
    int keep = cols - 1; /* code points of s kept around the "…" */
    int front = middle ? (keep + 1) / 2 : keep, back = keep - front;
    size_t fb = head_bytes(s, front);
    size_t bstart = head_bytes(s, have - back), bb = strlen(s) - bstart;
    if (fb + 3 + bb + 1 > cap) return s; /* cannot happen with a buffer of 4 * cols + 4 */
    memcpy(buf, s, fb);
    memcpy(buf + fb, "\xE2\x80\xA6", 3);
    memcpy(buf + fb + 3, s + bstart, bb);
    buf[fb + 3 + bb] = 0;
    return buf;
}

const char *ml_fit(const char *s, int cols, int middle, char *buf, size_t cap)
{
    if (!ml_text_unsafe(s)) return fit_safe(s, cols, middle, buf, cap);
    size_t tcap = 4 * strlen(s) + 1;
    char *esc = malloc(tcap);
    if (!esc) return "?";
    const char *t = ml_text_safe(s, esc, tcap);
    const char *fit = fit_safe(t, cols, middle, buf, cap);
    if (fit == t) { /* it fits: the escaped text itself, in the caller's buffer */
        snprintf(buf, cap, "%s", t);
        fit = buf;
    }
    free(esc);
    return fit;
}

/* s, a C++ function name, shorter: its return type "void " dropped, its
 * parameter list written "(…)" and, unless keep_templates, each template
 * argument list "<…>".  "(anonymous namespace)" in the qualified name stays.
 * A name cut short inside a template argument list is closed.  out holds
 * 3 * strlen(s) + 16 bytes ("<>" becomes "<…>", 5 bytes for 2). */
static void symbol_short(const char *s, int keep_templates, char *out)
{
    size_t n = 0;
    int depth = 0; /* of <> */
    if (!strncmp(s, "void ", 5)) s += 5;
    for (const char *p = s; *p; p++) {
        if (*p == '<') {
            if (keep_templates || !depth) out[n++] = '<';
            if (!keep_templates && !depth) { memcpy(out + n, "\xE2\x80\xA6", 3); n += 3; }
            depth++;
            continue;
        }
        if (*p == '>' && depth) {
            depth--;
            if (keep_templates || !depth) out[n++] = '>';
            continue;
        }
        if (depth && !keep_templates) continue;
        /* a parameter list follows the name at once ("f(", "f<…>("): not
         * "HtoD (Pinned" nor "::(anonymous namespace)" */
        if (*p == '(' && !depth && p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '>')) {
            memcpy(out + n, "(\xE2\x80\xA6)", 5);
            n += 5;
            break;
        }
        out[n++] = *p;
    }
    if (depth && !keep_templates) out[n++] = '>';
    out[n] = 0;
}

const char *ml_fit_symbol(const char *s, int cols, char *buf, size_t cap)
{
    if (cols <= 0 || ml_text_cols(s) <= cols) return ml_fit(s, cols, 0, buf, cap);
    char *t = malloc(3 * strlen(s) + 16);
    if (!t) return ml_fit(s, cols, 1, buf, cap);
    symbol_short(s, 1, t);
    if (ml_text_cols(t) > cols) symbol_short(s, 0, t);
    /* still too wide: cut in the middle, where two kernels of one family differ less */
    const char *fit = ml_fit(t, cols, strcmp(t, s) != 0, buf, cap);
    if (fit == t) { /* it fits as it is */
        snprintf(buf, cap, "%s", t);
        fit = buf;
    }
    free(t);
    return fit;
}
