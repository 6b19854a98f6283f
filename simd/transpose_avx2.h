/*
 * transpose_avx2.h -- the 4x4 word transpose in each 128-bit half that the
 * AVX2 multi-key kernels (md5x8_avx2.c, bytehash_avx2.c) use to turn the
 * 16-byte rows of eight keys (lanes i and i + 4 sharing register i) into
 * one register per 32-bit word, its elements in lane order.
 */
#ifndef PLC_SIMD_TRANSPOSE_AVX2_H
#define PLC_SIMD_TRANSPOSE_AVX2_H

#include <immintrin.h>

static inline void plc_transpose4_avx2(const __m256i r[4], __m256i w[4])
{
    __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    w[0] = _mm256_unpacklo_epi64(t0, t2);
    w[1] = _mm256_unpackhi_epi64(t0, t2);
    w[2] = _mm256_unpacklo_epi64(t1, t3);
    w[3] = _mm256_unpackhi_epi64(t1, t3);
}

#endif
