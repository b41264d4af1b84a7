/* utf8.c — UTF-8 validation; see utf8.h. */
#include "utf8.h"

static int cont(unsigned char c) { return (c & 0xC0) == 0x80; }

size_t ml_utf8_seq(const unsigned char *s, size_t n)
{
    if (!n) return 0;
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0; /* a continuation byte, or an overlong 2-byte form */
    if (c < 0xE0) return n >= 2 && cont(s[1]) ? 2 : 0;
    if (c < 0xF0) {
        if (n < 3 || !cont(s[1]) || !cont(s[2])) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;  /* overlong */
        if (c == 0xED && s[1] >= 0xA0) return 0; /* a surrogate, U+D800..U+DFFF */
        return 3;
    }
    if (c < 0xF5) {
        if (n < 4 || !cont(s[1]) || !cont(s[2]) || !cont(s[3])) return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0;  /* overlong */
        if (c == 0xF4 && s[1] >= 0x90) return 0; /* past U+10FFFF */
        return 4;
    }
    return 0;
}

unsigned ml_utf8_decode(const unsigned char *s, size_t len)
{
    switch (len) {
    case 1: return s[0];
    case 2: return (unsigned)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
    case 3: return (unsigned)(s[0] & 0x0F) << 12 | (unsigned)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
    default: return (unsigned)(s[0] & 0x07) << 18 | (unsigned)(s[1] & 0x3F) << 12 | (unsigned)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
    }
}
