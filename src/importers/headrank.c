/*
 * headrank.c — the rank a Kineto trace names itself, from its head; see headrank.h.
 */
#include "headrank.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "source.h"

/* The end of the JSON string that starts at s[i] == '"' (the index after its closing quote), or n. */
static size_t skip_string(const char *s, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        if (s[i] == '\\') i++;
        else if (s[i] == '"') return i + 1;
    }
    return n;
}

static size_t skip_space(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* A whole non-negative integer below 2^31 at s[i] (then a delimiter), or -1. */
static long read_count(const char *s, size_t i, size_t n)
{
    long v = 0;
    size_t j = i;
    for (; j < n && s[j] >= '0' && s[j] <= '9'; j++) {
        v = v * 10 + (s[j] - '0');
        if (v > INT32_MAX) return -1;
    }
    if (j == i || j >= n) return -1;            /* no digits, or cut inside the number */
    if (s[j] == '.' || s[j] == 'e' || s[j] == 'E') return -1; /* 1.5, 1e3: not a rank */
    return v;
}

bool ml_head_rank(const char *head, size_t n, int *rank, int *world)
{
    static const char key[] = "\"distributedInfo\"";
    size_t i = 0;
    int depth = 0;
    long r = -1, w = -1;
    /* find the key at depth 1 (a key of the top-level object) */
    for (;;) {
        while (i < n && head[i] != '"' && head[i] != '{' && head[i] != '}' && head[i] != '[' && head[i] != ']') i++;
        if (i >= n) return false;
        if (head[i] == '{' || head[i] == '[') { depth++; i++; continue; }
        if (head[i] == '}' || head[i] == ']') { depth--; i++; continue; }
        size_t e = skip_string(head, i, n);
        bool hit = depth == 1 && e - i == sizeof key - 1 && !memcmp(head + i, key, sizeof key - 1);
        i = e;
        if (!hit) continue;
        i = skip_space(head, i, n);
        if (i >= n || head[i] != ':') continue;
        i = skip_space(head, i + 1, n);
        if (i >= n || head[i] != '{') return false;
        break;
    }
    /* its own keys: depth 1 inside it */
    depth = 0;
    for (; i < n; ) {
        char c = head[i];
        if (c == '{' || c == '[') { depth++; i++; continue; }
        if (c == '}' || c == ']') {
            if (--depth == 0) break;            /* its end */
            i++;
            continue;
        }
        if (c != '"') { i++; continue; }
        size_t e = skip_string(head, i, n);
        size_t klen = e - i;
        bool is_rank = depth == 1 && klen == 6 && !memcmp(head + i, "\"rank\"", 6);
        bool is_world = depth == 1 && klen == 12 && !memcmp(head + i, "\"world_size\"", 12);
        i = e;
        if (!is_rank && !is_world) continue;
        size_t j = skip_space(head, i, n);
        if (j >= n || head[j] != ':') continue;  /* a value, not a key */
        j = skip_space(head, j + 1, n);
        long v = read_count(head, j, n);
        if (is_rank) {
            if (v < 0) return false;            /* a rank that is not a whole number: the import says why */
            r = v;
        } else w = v;
    }
    if (r < 0) return false;
    *rank = (int)r;
    *world = w >= 0 ? (int)w : -1;
    return true;
}

int ml_head_rank_file_known(const char *path, int *rank, int *world)
{
    static const size_t cap = ML_HEAD_RANK_BYTES;
    ml_source *src;
    ml_err e = {{0}};
    if (ml_source_open(path, &src, &e) < 0) return -1;
    /* the first decoded bytes (a gzip file's too: ml_source inflates), one
     * more than the head: whether the input ends within it */
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, cap + 1, &e);
    bool readable = !e.msg[0]; /* a corrupt or cut stream: nothing can be told */
    bool whole = n <= cap;
    if (n > cap) n = cap;
    const char *buf = (const char *)head;
    int r, w, known = -1;
    if (readable && ml_head_rank(buf, n, &r, &w)) {
        *rank = r;
        *world = w;
        known = 1;
    } else if (readable && whole) {
        static const char key[] = "\"distributedInfo\"";
        /* read whole and no rank: none, unless a distributedInfo is there whose rank the import must judge */
        known = memmem(buf, n, key, sizeof key - 1) ? -1 : 0;
    }
    ml_source_close(src);
    return known;
}

bool ml_head_rank_file(const char *path, int *rank, int *world)
{
    return ml_head_rank_file_known(path, rank, world) == 1;
}
