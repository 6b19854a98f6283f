/*
 * jumpback_avx512.c -- JumpBackHash's first step, eight keys a vector
 * (jumpback.h), bit for bit plc_jumpback_first:
 *   - r0: SplitMix64 in 64-bit lanes (vpmullq);
 *   - 2^i, the highest set range bit: x (below 2^32) converted to a double
 *     exactly, its mantissa cleared, converted back; 0 stays 0;
 *   - the parity of x: x ^= x >> 1, x ^= x >> 2 leave each nibble's parity
 *     in its low bit, and a multiply by 0x11111111 sums the eight of them
 *     into bits 28-31 (no carry: each nibble sum stays below 16);
 *   - the half: r0 shifted right by 32 * parity (vpsrlvq), masked below
 *     2^i, or'd with it, and lanes with no bit set zeroed.
 */
#include <immintrin.h>

#include "jumpback.h"

void plc_jumpback_first_avx512(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out)
{
    const __m512i golden = _mm512_set1_epi64((long long)PLC_GOLDEN64);
    const __m512i m1 = _mm512_set1_epi64((long long)UINT64_C(0xbf58476d1ce4e5b9));
    const __m512i m2 = _mm512_set1_epi64((long long)UINT64_C(0x94d049bb133111eb));
    const __m512i range = _mm512_set1_epi64(mask), one = _mm512_set1_epi64(1);
    const __m512i exponent = _mm512_set1_epi64((long long)UINT64_C(0xfff0000000000000));
    const __m512i nibbles = _mm512_set1_epi64(0x11111111), thirty_two = _mm512_set1_epi64(32);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i z = _mm512_add_epi64(_mm512_loadu_si512((const void *)(h + i)), golden);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), m1);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), m2);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
        __m512i x = _mm512_and_si512(_mm512_xor_si512(z, _mm512_srli_epi64(z, 32)), range);
        __m512i top = _mm512_and_si512(_mm512_castpd_si512(_mm512_cvtepu64_pd(x)), exponent);
        __m512i lo = _mm512_cvttpd_epu64(_mm512_castsi512_pd(top));
        __m512i v = _mm512_xor_si512(x, _mm512_srli_epi64(x, 1));
        v = _mm512_xor_si512(v, _mm512_srli_epi64(v, 2));
        v = _mm512_mul_epu32(_mm512_and_si512(v, nibbles), nibbles);
        __m512i shift = _mm512_and_si512(_mm512_srli_epi64(v, 23), thirty_two);
        __m512i off = _mm512_and_si512(_mm512_srlv_epi64(z, shift), _mm512_sub_epi64(lo, one));
        __mmask8 any = _mm512_test_epi64_mask(x, x);
        __m512i p = _mm512_maskz_mov_epi64(any, _mm512_or_si512(lo, off));
        _mm256_storeu_si256((__m256i *)(void *)(out + i), _mm512_cvtepi64_epi32(p));
    }
    for (; i < n; i++)
        out[i] = plc_jumpback_first(plc_mix64(h[i] + PLC_GOLDEN64), mask);
}
