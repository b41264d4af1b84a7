/*
 * textwidth.c — terminal width and ellipsis fitting (textwidth.h).
 */
#include "textwidth.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "err.h"
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

/* ---- ml_fit_apart ------------------------------------------------------- */

typedef struct apart {
    char *name; /* escaped */
    char *fit;
    int first;  /* the places its fit shows (code points): where the names it */
    int at;     /* was cut alike with first part, and its nearest; -1: plain cut */
} apart;

static int by_fit_then_name(const void *a, const void *b)
{
    const apart *x = *(const apart *const *)a, *y = *(const apart *const *)b;
    int c = strcmp(x->fit, y->fit);
    return c ? c : strcmp(x->name, y->name);
}

/* Code points two texts (valid UTF-8) share at their start. */
static int common_head(const char *a, const char *b)
{
    int k = 0;
    for (size_t i = 0; a[i] && b[i];) {
        unsigned char c = (unsigned char)a[i];
        size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (strncmp(a + i, b + i, len)) break;
        i += len;
        k++;
    }
    return k;
}

/* s (needing no escape, more than cols code points) in at most cols
 * columns, showing a short head and then the code points from each of the
 * nat (1 or 2, ascending) places at on, each window after a "…", and "…"
 * when the last window ends before s does. */
static char *fit_showing(const char *s, int cols, const int *at, int nat)
{
    int have = cols_of(s);
    if (cols < 8) cols = 8;
    int room = cols - nat - 1; /* code points shown: the "…"s take the rest */
    int head = room / (2 * (nat + 1));
    if (head > at[0]) head = at[0];
    if (head < 1) head = 1;
    int from[3] = {0}, to[3] = {head}, nseg = 1, left = room - head;
    for (int k = 0; k < nat; k++) {
        int w = left / (nat - k), f = at[k] - 1 > to[nseg - 1] ? at[k] - 1 : to[nseg - 1];
        if (f + w > have) f = have - w > to[nseg - 1] ? have - w : to[nseg - 1]; /* the tail, whole */
        int t = f + w < have ? f + w : have;
        from[nseg] = f;
        to[nseg++] = t;
        left -= t - f;
    }
    char *out = ml_malloc(strlen(s) + 3 * (size_t)(nat + 1) + 1);
    size_t n = 0;
    int shown = 0;
    for (int k = 0; k < nseg; k++) {
        if (from[k] > shown) {
            memcpy(out + n, "\xE2\x80\xA6", 3);
            n += 3;
        }
        size_t a = head_bytes(s, from[k]), b = head_bytes(s, to[k]);
        memcpy(out + n, s + a, b - a);
        n += b - a;
        if (to[k] > shown) shown = to[k];
    }
    if (shown < have) {
        memcpy(out + n, "\xE2\x80\xA6", 3);
        n += 3;
    }
    out[n] = 0;
    return out;
}

char **ml_fit_apart(const char *const *names, size_t n, int cols, int middle)
{
    char **out = ml_calloc(n ? n : 1, sizeof *out);
    apart *a = ml_calloc(n ? n : 1, sizeof *a);
    apart **order = ml_calloc(n ? n : 1, sizeof *order);
    for (size_t i = 0; i < n; i++) {
        size_t cap = 4 * strlen(names[i]) + 1;
        char *esc = ml_malloc(cap);
        a[i].name = ml_strdup(ml_text_safe(names[i], esc, cap)); /* names[i] itself when safe */
        free(esc);
        size_t fcap = 4 * (cols > 0 ? (size_t)cols : strlen(names[i])) + 8;
        char *fb = ml_malloc(fcap);
        a[i].fit = ml_strdup(fit_safe(a[i].name, cols, middle, fb, fcap));
        free(fb);
        a[i].at = a[i].first = -1;
        order[i] = &a[i];
    }
    /* In each run of one fitted text, the sorted names' neighbours are the
     * ones they share most with: the place to show is just past that.  A name
     * shown from a new place may now read as another's: a few rounds more,
     * each moving a name's place only further on. */
    for (int round = 0; round < 6; round++) {
        qsort(order, n, sizeof *order, by_fit_then_name);
        bool moved = false;
        for (size_t i = 0, j; i < n; i = j) {
            for (j = i + 1; j < n && !strcmp(order[j]->fit, order[i]->fit); j++) {}
            /* the run's names sorted: the first and the last share the least */
            int first = j - i > 1 ? common_head(order[i]->name, order[j - 1]->name) : 0;
            for (size_t k = i; j - i > 1 && k < j; k++) {
                apart *x = order[k];
                int at = -1; /* its nearest different names: before and after its own copies */
                size_t b = k, e = k;
                while (b > i && !strcmp(order[b - 1]->name, x->name)) b--;
                while (e + 1 < j && !strcmp(order[e + 1]->name, x->name)) e++;
                if (b > i) at = common_head(order[b - 1]->name, x->name);
                if (e + 1 < j) {
                    int c = common_head(order[e + 1]->name, x->name);
                    if (c > at) at = c;
                }
                /* the same name twice, or one that fits whole: nothing to show */
                if (at < 0 || cols <= 0 || cols_of(x->name) <= cols) continue;
                /* where its runs first part, and where it parts from its nearest */
                int lo = x->first >= 0 && x->first < first ? x->first : first, hi = at > x->at ? at : x->at;
                if (lo == x->first && hi == x->at) continue;
                int places[2] = {lo, hi}, np = hi - lo > 4 ? 2 : 1;
                if (np == 1) places[0] = hi;
                char *t = fit_showing(x->name, cols, places, np);
                free(x->fit);
                x->fit = t;
                x->first = lo;
                x->at = hi;
                moved = true;
            }
        }
        if (!moved) break;
    }
    /* names that part in more places than a window can show: the second,
     * third ... of a run end in "[2]", "[3]" instead of their last columns */
    qsort(order, n, sizeof *order, by_fit_then_name);
    for (size_t i = 0, j; i < n; i = j) {
        int nth = 1;
        for (j = i + 1; j < n && !strcmp(order[j]->fit, order[i]->fit); j++) {
            if (strcmp(order[j]->name, order[j - 1]->name)) nth++;
            if (nth < 2) continue; /* copies of the run's first name */
            char tag[24];
            int tl = snprintf(tag, sizeof tag, "[%d]", nth);
            char *x = order[j]->fit;
            int have = cols_of(x), keep = have - tl > 1 ? have - tl : 1;
            size_t kb = head_bytes(x, keep);
            char *t = ml_malloc(kb + (size_t)tl + 1);
            memcpy(t, x, kb);
            memcpy(t + kb, tag, (size_t)tl + 1);
            free(x);
            order[j]->fit = t;
        }
    }
    for (size_t i = 0; i < n; i++) {
        out[i] = a[i].fit;
        free(a[i].name);
    }
    free(a);
    free(order);
    return out;
}

void ml_fit_apart_free(char **fitted, size_t n)
{
    if (!fitted) return;
    for (size_t i = 0; i < n; i++) free(fitted[i]);
    free(fitted);
}
