/*
 * jumpback_avx2.c -- JumpBackHash's first step, four keys a vector
 * (jumpback.h), bit for bit plc_jumpback_first, as jumpback_avx512.c
 * without its 64-bit multiply and conversions:
 *   - r0: SplitMix64 in 64-bit lanes, each 64-bit product from three
 *     32 x 32 -> 64 multiplies (the high halves' product drops out);
 *   - 2^i, the highest set range bit: x (below 2^32) in a double's
 *     mantissa under 2^52, 2^52 subtracted (exact), the exponent kept and
 *     turned into a shift of 1 (x = 0: exponent 0, a shift past 63, 0);
 *   - the parity of x: x ^= x >> 1, x ^= x >> 2 leave each nibble's parity
 *     in its low bit, and a multiply by 0x11111111 sums the eight of them
 *     into bits 28-31 (no carry: each nibble sum stays below 16);
 *   - the half: r0 shifted right by 32 * parity, masked below 2^i, or'd
 *     with it, and lanes with no bit set zeroed.
 */
#include <immintrin.h>

#include "jumpback.h"

/* The low 64 bits of a * b in each lane; b_hi holds b's high halves. */
static inline __m256i mullo64(__m256i a, __m256i b, __m256i b_hi)
{
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
                                     _mm256_mul_epu32(a, b_hi));
    return _mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32));
}

void plc_jumpback_first_avx2(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out)
{
    const __m256i golden = _mm256_set1_epi64x((long long)PLC_GOLDEN64);
    const __m256i m1 = _mm256_set1_epi64x((long long)UINT64_C(0xbf58476d1ce4e5b9));
    const __m256i m1_hi = _mm256_srli_epi64(m1, 32);
    const __m256i m2 = _mm256_set1_epi64x((long long)UINT64_C(0x94d049bb133111eb));
    const __m256i m2_hi = _mm256_srli_epi64(m2, 32);
    const __m256i range = _mm256_set1_epi64x(mask), one = _mm256_set1_epi64x(1);
    const __m256i two52 = _mm256_set1_epi64x((long long)UINT64_C(0x4330000000000000));
    const __m256i bias = _mm256_set1_epi64x(1023), zero = _mm256_setzero_si256();
    const __m256i nibbles = _mm256_set1_epi64x(0x11111111), thirty_two = _mm256_set1_epi64x(32);
    const __m256i evens = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i z = _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(h + i)), golden);
        z = mullo64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), m1, m1_hi);
        z = mullo64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), m2, m2_hi);
        z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
        __m256i x = _mm256_and_si256(_mm256_xor_si256(z, _mm256_srli_epi64(z, 32)), range);
        __m256d d = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, two52)),
                                  _mm256_castsi256_pd(two52));
        __m256i e = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(d), 52), bias);
        __m256i lo = _mm256_sllv_epi64(one, e);
        __m256i v = _mm256_xor_si256(x, _mm256_srli_epi64(x, 1));
        v = _mm256_xor_si256(v, _mm256_srli_epi64(v, 2));
        v = _mm256_mul_epu32(_mm256_and_si256(v, nibbles), nibbles);
        __m256i shift = _mm256_and_si256(_mm256_srli_epi64(v, 23), thirty_two);
        __m256i off = _mm256_and_si256(_mm256_srlv_epi64(z, shift), _mm256_sub_epi64(lo, one));
        __m256i p = _mm256_andnot_si256(_mm256_cmpeq_epi64(x, zero), _mm256_or_si256(lo, off));
        p = _mm256_permutevar8x32_epi32(p, evens);
        _mm_storeu_si128((__m128i *)(void *)(out + i), _mm256_castsi256_si128(p));
    }
    for (; i < n; i++)
        out[i] = plc_jumpback_first(plc_mix64(h[i] + PLC_GOLDEN64), mask);
}
