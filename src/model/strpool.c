/* strpool.c — interned strings: one open-addressing hash table over an append-only byte arena. */
#include "strpool.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

struct ml_strpool {
    char *bytes;          /* every string, NUL-terminated, back to back */
    size_t bytes_len, bytes_cap;
    uint64_t *offs;       /* id -> (offset << 24 | min(len, 0xFFFFFF)) */
    uint32_t *lens;       /* id -> exact length */
    size_t count, offs_cap;
    uint64_t *table;      /* hash slot -> hash << 32 | (id + 1), 0 = empty: a probe
                           * compares hashes without touching the id's rows */
    size_t mask;
};

static uint32_t hash_bytes(const char *s, size_t n)
{
    /* FNV-1a over 8-byte words then the tail: fast and good enough for names. */
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    h ^= h >> 32;
    return (uint32_t)h;
}

static void grow_table(ml_strpool *sp)
{
    size_t nslots = (sp->mask + 1) * 2;
    uint64_t *t = ml_calloc(nslots, sizeof *t);
    for (size_t i = 0; i <= sp->mask; i++) {
        uint64_t slot = sp->table[i];
        if (!slot) continue;
        size_t j = (slot >> 32) & (nslots - 1);
        while (t[j]) j = (j + 1) & (nslots - 1);
        t[j] = slot;
    }
    free(sp->table);
    sp->table = t;
    sp->mask = nslots - 1;
}

ml_strpool *ml_strpool_new(void)
{
    ml_strpool *sp = ml_calloc(1, sizeof *sp);
    sp->mask = 1023;
    sp->table = ml_calloc(sp->mask + 1, sizeof *sp->table);
    ml_intern(sp, "", 0); /* id 0 */
    return sp;
}

void ml_strpool_free(ml_strpool *sp)
{
    if (!sp) return;
    free(sp->bytes);
    free(sp->offs);
    free(sp->lens);
    free(sp->table);
    free(sp);
}

/* A NUL byte inside a name (JSON's \u0000, a NUL in a CSV cell or a pickle
 * string) is kept as U+2400 SYMBOL FOR NULL ("\xE2\x90\x80"): every output
 * reads names as C strings, where the NUL cut them ("aten::sl\u0000ice" and
 * "aten::sl\u0000ow" both showed as "aten::sl", though interned apart).  With
 * the visible symbol in its place every byte after it is kept and shown, and
 * names that differ stay apart (but for one that has U+2400 itself where the
 * other has a NUL: no real profiler writes either).  Done here, once, for
 * every reader. */
static ml_str intern_with_nul(ml_strpool *sp, const char *s, size_t n)
{
    size_t nuls = 0;
    for (size_t i = 0; i < n; i++) nuls += s[i] == 0;
    char *buf = ml_malloc(n + 2 * nuls + 1);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i]) buf[w++] = s[i];
        else memcpy(buf + w, "\xE2\x90\x80", 3), w += 3;
    }
    ml_str id = ml_intern_bytes(sp, buf, w);
    free(buf);
    return id;
}

ml_str ml_intern(ml_strpool *sp, const char *s, size_t n)
{
    if (n && memchr(s, 0, n)) return intern_with_nul(sp, s, n);
    return ml_intern_bytes(sp, s, n);
}

ml_str ml_intern_bytes(ml_strpool *sp, const char *s, size_t n)
{
    uint32_t h = hash_bytes(s, n);
    size_t j = h & sp->mask;
    uint64_t short_len = n < 0xFFFFFF ? n : 0xFFFFFF;
    for (uint64_t slot; (slot = sp->table[j]) != 0; j = (j + 1) & sp->mask) {
        if ((uint32_t)(slot >> 32) != h) continue;
        uint32_t id = (uint32_t)slot - 1;
        uint64_t off = sp->offs[id];
        if ((off & 0xFFFFFF) == short_len && (short_len < 0xFFFFFF || sp->lens[id] == n) &&
            memcmp(sp->bytes + (off >> 24), s, n) == 0)
            return id;
    }
    if (sp->count == sp->offs_cap) {
        sp->offs_cap = sp->offs_cap ? sp->offs_cap * 2 : 1024;
        sp->offs = ml_realloc(sp->offs, sp->offs_cap * sizeof *sp->offs);
        sp->lens = ml_realloc(sp->lens, sp->offs_cap * sizeof *sp->lens);
    }
    if (sp->bytes_len + n + 1 > sp->bytes_cap) {
        size_t cap = sp->bytes_cap ? sp->bytes_cap : 65536;
        while (cap < sp->bytes_len + n + 1) cap *= 2;
        sp->bytes = ml_realloc(sp->bytes, cap);
        sp->bytes_cap = cap;
    }
    uint32_t id = (uint32_t)sp->count++;
    memcpy(sp->bytes + sp->bytes_len, s, n);
    sp->bytes[sp->bytes_len + n] = 0;
    sp->offs[id] = (uint64_t)sp->bytes_len << 24 | short_len;
    sp->lens[id] = (uint32_t)n;
    sp->bytes_len += n + 1;
    sp->table[j] = (uint64_t)h << 32 | (id + 1);
    if (sp->count * 2 > sp->mask + 1) grow_table(sp);
    return id;
}

ml_str ml_intern_cstr(ml_strpool *sp, const char *s) { return ml_intern(sp, s, strlen(s)); }

const char *ml_strget(const ml_strpool *sp, ml_str id)
{
    if (id >= sp->count) return "";
    return sp->bytes + (sp->offs[id] >> 24);
}

size_t ml_strlen(const ml_strpool *sp, ml_str id) { return id < sp->count ? sp->lens[id] : 0; }
size_t ml_strpool_count(const ml_strpool *sp) { return sp->count; }
