/* byteblock.h — 64 bytes of JSON at a time as bit masks, for the scanners
 * that skip containers without looking at every byte (jsonscan.c: js_skip
 * and js_plain_skip_container).  Bit k of a mask stands for byte k of the block.
 * Header only: each is small and must inline into its caller's loop. */
#ifndef ML_BYTEBLOCK_H
#define ML_BYTEBLOCK_H

#include <stdint.h>

#ifdef __SSE2__
#include <emmintrin.h>

/* Whether byte k of the 64 at b is c; with fold 0x20, c with bit 5 either
 * way, so that '{' finds '[' too, and '}' ']'. */
static inline uint64_t ml_block_eq(const char *b, char c, char fold)
{
    const __m128i want = _mm_set1_epi8(c), or_ = _mm_set1_epi8(fold);
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(b + 16 * k)), or_);
        m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, want)) << (16 * k);
    }
    return m;
}

/* Bit k: whether an odd number of bits 0..k of x are set (for x the quotes:
 * inside a string; the opening quote counts as inside, the closing one not). */
static inline uint64_t ml_block_odd_prefix(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ML_HAVE_BLOCK_AVX2 1
/* ml_block_eq() with AVX2 (two 32-byte loads), for callers compiled for it
 * (target("avx2")) behind __builtin_cpu_supports("avx2"). */
__attribute__((target("avx2"))) static inline uint64_t ml_block_eq_avx2(const char *b, char c, char fold)
{
    const __m256i want = _mm256_set1_epi8(c), or_ = _mm256_set1_epi8(fold);
    __m256i lo = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(const void *)b), or_);
    __m256i hi = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(const void *)(b + 32)), or_);
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, want)) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, want)) << 32;
}
#endif

#endif
