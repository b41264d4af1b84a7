/*
 * report_lz.c — a deflate encoder for planes of nearly all repeats
 * (report_lz.h): tokens from a greedy search (the last match's distance
 * tried first, then a hash table of 4-byte sequences filled only where a
 * token begins), then one dynamic Huffman block (RFC 1951).
 */
#include "report_lz.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

enum { MIN_MATCH = 4, MAX_MATCH = 258, WINDOW = 32768, HBITS = 14, NLIT = 286, NDIST = 30, NCL = 19 };

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                       193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint8_t cl_order[NCL] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* A match's length code (0..28) by length, its distance code by distance - 1
 * (below 256) or by (distance - 1) >> 7 (above): made once. */
static uint8_t len_code[MAX_MATCH + 1], dist_code[512];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static void tables_make(void)
{
    for (int c = 0; c < 29; c++)
        for (int l = len_base[c]; l < len_base[c] + (1 << len_extra[c]) && l <= MAX_MATCH; l++) len_code[l] = (uint8_t)c;
    len_code[MAX_MATCH] = 28;
    for (int c = 0; c < 30; c++)
        for (int d = dist_base[c]; d < dist_base[c] + (1 << dist_extra[c]); d++) {
            if (d <= 256) dist_code[d - 1] = (uint8_t)c;
            else dist_code[256 + ((d - 1) >> 7)] = (uint8_t)c;
        }
}
static inline unsigned dcode(uint32_t d) { return d <= 256 ? dist_code[d - 1] : dist_code[256 + ((d - 1) >> 7)]; }

/* A token: a literal (its byte), or a match: (distance << 9) | (256 + length - 3). */
typedef struct tokens {
    uint32_t *v;
    size_t len, cap;
} tokens;

static inline void tok_push(tokens *t, uint32_t x)
{
    if (t->len == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 4096;
        t->v = ml_realloc(t->v, t->cap * sizeof *t->v);
    }
    t->v[t->len++] = x;
}

void ml_lz_state_free(ml_lz_state *st)
{
    free(st->table);
    free(st->tokens);
    *st = (ml_lz_state){0};
}

static inline uint32_t load32(const unsigned char *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

/* The length of the match of b + i against b + j (j < i), at most max. */
static inline size_t extend(const unsigned char *b, size_t j, size_t i, size_t max)
{
    size_t len = MIN_MATCH;
    while (len + 8 <= max) {
        uint64_t p, q;
        memcpy(&p, b + j + len, 8);
        memcpy(&q, b + i + len, 8);
        if (p != q) return len + (size_t)(__builtin_ctzll(p ^ q) >> 3); /* (little-endian: the lowest byte first) */
        len += 8;
    }
    while (len < max && b[j + len] == b[i + len]) len++;
    return len;
}

static void find_tokens(ml_lz_state *st, const unsigned char *b, size_t n, tokens *t, uint32_t *freq_lit,
                        uint32_t *freq_dist)
{
    /* base + 1 + the latest place of a hash; an entry at or below base is
     * from an earlier blob: none (the table is cleared only when base would wrap) */
    if (!st->table || (uint64_t)st->base + n + 1 > UINT32_MAX) {
        if (!st->table) st->table = ml_malloc(((size_t)1 << HBITS) * sizeof *st->table);
        memset(st->table, 0, ((size_t)1 << HBITS) * sizeof *st->table);
        st->base = 0;
    }
    uint32_t *table = st->table, base = st->base;
    size_t i = 0, last = 0;
    while (i + MIN_MATCH <= n) {
        uint32_t x = load32(b + i), h = (x * 2654435761u) >> (32 - HBITS);
        /* the longer of the matches at the last distance (a run, a pattern
         * again) and at the hash's place */
        size_t max = n - i < MAX_MATCH ? n - i : MAX_MATCH, cand = SIZE_MAX, len = 0;
        if (last && i >= last && load32(b + i - last) == x) cand = i - last, len = extend(b, cand, i, max);
        size_t at = (size_t)table[h] - base - 1;
        if (table[h] > base && len < max && at != cand && i - at <= WINDOW && load32(b + at) == x) {
            size_t l2 = extend(b, at, i, max);
            if (l2 > len) cand = at, len = l2;
        }
        table[h] = base + (uint32_t)i + 1;
        if (cand == SIZE_MAX) {
            tok_push(t, b[i]);
            freq_lit[b[i]]++;
            i++;
            continue;
        }
        uint32_t d = (uint32_t)(i - cand);
        tok_push(t, d << 9 | (uint32_t)(256 + len - 3));
        freq_lit[257 + len_code[len]]++;
        freq_dist[dcode(d)]++;
        last = d;
        i += len;
    }
    for (; i < n; i++) {
        tok_push(t, b[i]);
        freq_lit[b[i]]++;
    }
    st->base = base + (uint32_t)n + 1;
}

/* Huffman code lengths of at most `limit` bits for freq[0..n) (symbols of
 * frequency 0 get none): a tree from the two queues of leaves by weight and
 * of nodes made; too deep, the weights are halved (kept above 0) and it is
 * made again. */
static void code_lengths(const uint32_t *freq, int n, int limit, uint8_t *len)
{
    int sym[NLIT], m = 0;
    uint32_t w[2 * NLIT];
    int parent[2 * NLIT];
    uint8_t depth[2 * NLIT];
    memset(len, 0, (size_t)n);
    for (int s = 0; s < n; s++)
        if (freq[s]) sym[m++] = s;
    if (m == 0) return;
    if (m == 1) { len[sym[0]] = 1; return; }
    for (int a = 1; a < m; a++) /* by frequency, ties by symbol (insertion: n <= 286) */
        for (int b = a; b > 0 && freq[sym[b]] < freq[sym[b - 1]]; b--) {
            int x = sym[b];
            sym[b] = sym[b - 1];
            sym[b - 1] = x;
        }
    for (unsigned shift = 0;; shift++) {
        for (int k = 0; k < m; k++) w[k] = (freq[sym[k]] >> shift) | 1;
        int leaf = 0, node = m, made = m;
        for (int k = 0; k < m - 1; k++) {
            int pick[2];
            for (int q = 0; q < 2; q++)
                pick[q] = leaf < m && (node == made || w[leaf] <= w[node]) ? leaf++ : node++;
            w[made] = w[pick[0]] + w[pick[1]];
            parent[pick[0]] = parent[pick[1]] = made++;
        }
        depth[made - 1] = 0;
        int deepest = 0;
        for (int k = made - 2; k >= 0; k--) {
            depth[k] = (uint8_t)(depth[parent[k]] + 1);
            if (k < m && depth[k] > deepest) deepest = depth[k];
        }
        if (deepest <= limit) {
            for (int k = 0; k < m; k++) len[sym[k]] = depth[k];
            return;
        }
    }
}

/* The canonical codes of len[0..n), bit-reversed (deflate sends codes from their first bit). */
static void codes_of(const uint8_t *len, int n, uint16_t *code)
{
    uint16_t count[16] = {0}, next[16];
    for (int s = 0; s < n; s++) count[len[s]]++;
    count[0] = 0;
    unsigned c = 0;
    for (int b = 1; b < 16; b++) next[b] = (uint16_t)(c = (c + count[b - 1]) << 1);
    for (int s = 0; s < n; s++) {
        if (!len[s]) continue;
        unsigned x = next[len[s]]++, r = 0;
        for (int b = 0; b < len[s]; b++) r |= (x >> b & 1) << (len[s] - 1 - b);
        code[s] = (uint16_t)r;
    }
}

typedef struct bits {
    unsigned char *out;
    size_t at, cap;
    uint64_t acc;
    unsigned n;
    bool full;
} bits;

static inline void put_bits(bits *o, uint32_t v, unsigned k)
{
    o->acc |= (uint64_t)v << o->n;
    o->n += k;
    if (o->n >= 32) {
        if (o->at + 4 <= o->cap)
            for (int b = 0; b < 4; b++) o->out[o->at++] = (unsigned char)(o->acc >> (8 * b));
        else o->full = true; /* (nothing written past cap: the caller gets 0) */
        o->acc >>= 32;
        o->n -= 32;
    }
}

static void flush_bits(bits *o)
{
    while (o->n > 0) {
        if (o->at >= o->cap) { o->full = true; return; }
        o->out[o->at++] = (unsigned char)o->acc;
        o->acc >>= 8;
        o->n = o->n > 8 ? o->n - 8 : 0;
    }
}

size_t ml_lz_deflate(ml_lz_state *st, unsigned char *out, size_t cap, const unsigned char *bytes, size_t n)
{
    pthread_once(&tables_once, tables_make);
    uint32_t freq_lit[NLIT] = {0}, freq_dist[NDIST] = {0}, freq_cl[NCL] = {0};
    tokens t = {st->tokens, 0, st->tokens_cap};
    find_tokens(st, bytes, n, &t, freq_lit, freq_dist);
    st->tokens = t.v, st->tokens_cap = t.cap;
    freq_lit[256] = 1; /* the end of the block */
    /* at least two codes in each (complete codes, which every inflater reads) */
    int used = 0;
    for (int s = 0; s < NDIST; s++) used += freq_dist[s] != 0;
    for (int s = 0; used < 2 && s < NDIST; s++)
        if (!freq_dist[s]) freq_dist[s] = 1, used++;
    used = 0;
    for (int s = 0; s < NLIT; s++) used += freq_lit[s] != 0;
    for (int s = 0; used < 2 && s < NLIT; s++)
        if (!freq_lit[s]) freq_lit[s] = 1, used++;
    uint8_t len_lit[NLIT], len_dist[NDIST], len_cl[NCL];
    code_lengths(freq_lit, NLIT, 15, len_lit);
    code_lengths(freq_dist, NDIST, 15, len_dist);
    int hlit = NLIT, hdist = NDIST;
    while (hlit > 257 && !len_lit[hlit - 1]) hlit--;
    while (hdist > 1 && !len_dist[hdist - 1]) hdist--;

    /* the code lengths, run-length coded: 16 repeats the last 3-6 times, 17 and 18 are 3-10 and 11-138 zeros */
    uint8_t all[NLIT + NDIST], rle[NLIT + NDIST], rle_extra[NLIT + NDIST];
    int na = 0, nr = 0;
    for (int s = 0; s < hlit; s++) all[na++] = len_lit[s];
    for (int s = 0; s < hdist; s++) all[na++] = len_dist[s];
    for (int i = 0; i < na;) {
        int j = i + 1;
        while (j < na && all[j] == all[i]) j++;
        int run = j - i;
        if (!all[i]) {
            while (run >= 11) { int k = run < 138 ? run : 138; rle[nr] = 18, rle_extra[nr++] = (uint8_t)(k - 11); run -= k; }
            if (run >= 3) { rle[nr] = 17, rle_extra[nr++] = (uint8_t)(run - 3); run = 0; }
        } else {
            rle[nr] = all[i], rle_extra[nr++] = 0, run--;
            while (run >= 3) { int k = run < 6 ? run : 6; rle[nr] = 16, rle_extra[nr++] = (uint8_t)(k - 3); run -= k; }
        }
        while (run-- > 0) rle[nr] = all[i], rle_extra[nr++] = 0;
        i = j;
    }
    for (int k = 0; k < nr; k++) freq_cl[rle[k]]++;
    int cl_used = 0;
    for (int s = 0; s < NCL; s++) cl_used += freq_cl[s] != 0;
    for (int s = 0; cl_used < 2 && s < NCL; s++)
        if (!freq_cl[s]) freq_cl[s] = 1, cl_used++;
    code_lengths(freq_cl, NCL, 7, len_cl);
    int hclen = NCL;
    while (hclen > 4 && !len_cl[cl_order[hclen - 1]]) hclen--;

    uint16_t code_lit[NLIT], code_dist[NDIST], code_cl[NCL];
    codes_of(len_lit, NLIT, code_lit);
    codes_of(len_dist, NDIST, code_dist);
    codes_of(len_cl, NCL, code_cl);

    bits o = {out, 0, cap, 0, 0, false};
    put_bits(&o, 1, 1); /* the final block */
    put_bits(&o, 2, 2); /* dynamic Huffman codes */
    put_bits(&o, (uint32_t)(hlit - 257), 5);
    put_bits(&o, (uint32_t)(hdist - 1), 5);
    put_bits(&o, (uint32_t)(hclen - 4), 4);
    for (int k = 0; k < hclen; k++) put_bits(&o, len_cl[cl_order[k]], 3);
    static const uint8_t rle_bits[3] = {2, 3, 7};
    for (int k = 0; k < nr; k++) {
        put_bits(&o, code_cl[rle[k]], len_cl[rle[k]]);
        if (rle[k] >= 16) put_bits(&o, rle_extra[k], rle_bits[rle[k] - 16]);
    }
    for (size_t k = 0; k < t.len && !o.full; k++) {
        uint32_t x = t.v[k];
        if (x < 256) {
            put_bits(&o, code_lit[x], len_lit[x]);
            continue;
        }
        unsigned len = (x & 511) - 256 + 3, d = x >> 9, lc = len_code[len], dc = dcode(d);
        put_bits(&o, code_lit[257 + lc], len_lit[257 + lc]);
        if (len_extra[lc]) put_bits(&o, len - len_base[lc], len_extra[lc]);
        put_bits(&o, code_dist[dc], len_dist[dc]);
        if (dist_extra[dc]) put_bits(&o, d - dist_base[dc], dist_extra[dc]);
    }
    put_bits(&o, code_lit[256], len_lit[256]);
    flush_bits(&o);
    return o.full ? 0 : o.at;
}
