/*
 * jumpback_sse41.c -- JumpBackHash's first step, four keys a vector
 * (jumpback.h), bit for bit plc_jumpback_first, with SSE4.1 (compiled
 * with -msse4.2). SSE has no 64-bit multiply: r0 is mixed in the general
 * registers (two imuls a key), the rest, all 32-bit, in the vector unit
 * beside them:
 *   - r0's low halves and high halves, four keys each (two shufps);
 *   - 2^i, the highest set range bit: y = x & ~(x >> 1) keeps it and
 *     clears the bit below it, so converting y to a float cannot round up
 *     to 2^(i+1); the float's mantissa cleared and converted back is 2^i
 *     (x = 0: 0). A lane with bit 31 set (a range mask of 32 bits, n >
 *     2^31) is negative as an int32: its 2^31 is blended in by x's sign;
 *   - below 2^i: min(2^i - 1, x) unsigned, 0 where x = 0;
 *   - the parity of x: x ^= x >> 1, x ^= x >> 2 leave each nibble's parity
 *     in its low bit, a multiply by 0x11111111 sums the eight of them into
 *     bits 28-31, shifted to the sign bit that picks the high half.
 * No branch, no table.
 */
#include <smmintrin.h>

#include "jumpback.h"

/* The first points of the four keys whose r0 are a and b (two each). */
static inline __m128i first4(__m128i a, __m128i b, __m128i range)
{
    const __m128i nibbles = _mm_set1_epi32(0x11111111), ones = _mm_set1_epi32(-1);
    const __m128 exponent = _mm_castsi128_ps(_mm_set1_epi32(0x7f800000));
    const __m128 top = _mm_castsi128_ps(_mm_set1_epi32((int)0x80000000u));
    __m128 even = _mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), _MM_SHUFFLE(2, 0, 2, 0));
    __m128 odd = _mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), _MM_SHUFFLE(3, 1, 3, 1));
    __m128i x = _mm_and_si128(_mm_castps_si128(_mm_xor_ps(even, odd)), range);
    __m128i y = _mm_andnot_si128(_mm_srli_epi32(x, 1), x);
    __m128i lo = _mm_cvttps_epi32(_mm_and_ps(_mm_cvtepi32_ps(y), exponent));
    lo = _mm_castps_si128(_mm_blendv_ps(_mm_castsi128_ps(lo), top, _mm_castsi128_ps(x)));
    __m128i below = _mm_min_epu32(_mm_add_epi32(lo, ones), x);
    __m128i v = _mm_xor_si128(x, _mm_srli_epi32(x, 1));
    v = _mm_xor_si128(v, _mm_srli_epi32(v, 2));
    v = _mm_slli_epi32(_mm_mullo_epi32(_mm_and_si128(v, nibbles), nibbles), 3);
    __m128 half = _mm_blendv_ps(even, odd, _mm_castsi128_ps(v));
    return _mm_or_si128(lo, _mm_and_si128(_mm_castps_si128(half), below));
}

void plc_jumpback_first_sse41(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out)
{
    const __m128i range = _mm_set1_epi32((int)mask);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64_t r0 = plc_mix64(h[i] + PLC_GOLDEN64), r1 = plc_mix64(h[i + 1] + PLC_GOLDEN64);
        uint64_t r2 = plc_mix64(h[i + 2] + PLC_GOLDEN64), r3 = plc_mix64(h[i + 3] + PLC_GOLDEN64);
        __m128i a = _mm_set_epi64x((long long)r1, (long long)r0);
        __m128i b = _mm_set_epi64x((long long)r3, (long long)r2);
        _mm_storeu_si128((__m128i *)(void *)(out + i), first4(a, b, range));
    }
    for (; i < n; i++)
        out[i] = plc_jumpback_first(plc_mix64(h[i] + PLC_GOLDEN64), mask);
}
