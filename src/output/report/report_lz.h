/*
 * report_lz.h — a deflate encoder for the blobs' planes that are nearly all
 * repeats (runs of zeros, the high bytes of small numbers, a step's pattern
 * again): a greedy match search that looks up only where a match may begin
 * and extends matches eight bytes at a time, then one dynamic Huffman block.
 * libdeflate's match finders hash every byte, inside matches too: 12 to 25
 * instructions a byte of such planes; this takes a few.
 */
#ifndef ML_REPORT_LZ_H
#define ML_REPORT_LZ_H

#include <stddef.h>

#include <stdint.h>

/* What one thread's encoder keeps from blob to blob: its hash table (not
 * cleared for each: an entry counts from `base` on) and its tokens.  Zeroed:
 * empty. */
typedef struct ml_lz_state {
    uint32_t *table;
    uint32_t base;
    uint32_t *tokens;
    size_t tokens_cap;
} ml_lz_state;
void ml_lz_state_free(ml_lz_state *st);

/* Raw deflate (one final block, no zlib header) of n bytes into out (cap
 * bytes); its length, or 0 if it did not fit. */
size_t ml_lz_deflate(ml_lz_state *st, unsigned char *out, size_t cap, const unsigned char *bytes, size_t n);

#endif
