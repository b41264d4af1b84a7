/*
 * textwidth.c — terminal width and ellipsis fitting (textwidth.h).
 */
#include "textwidth.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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

int ml_text_cols(const char *s)
{
    int n = 0;
    for (; *s; s++)
        if (!is_cont((unsigned char)*s)) n++;
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

const char *ml_fit(const char *s, int cols, int middle, char *buf, size_t cap)
{
    if (cols <= 0) return s;
    int have = ml_text_cols(s);
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
