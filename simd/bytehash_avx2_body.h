/*
 * bytehash_avx2_body.h -- the machinery of the byte hashes across 16 keys
 * of one length on 256-bit registers (see bytehash_avx2.c): rows of eight
 * keys transposed into words, a byte of each lane one shuffle away, and
 * DEFINE_BYTEHASH(_T), which writes a kernel from a hash's state, step and
 * finish. Included by bytehash_avx2.c and by bytehash_avx512.c, whose
 * kernels use AVX-512 VL instructions on the same registers.
 */
#ifndef PLC_SIMD_BYTEHASH_AVX2_BODY_H
#define PLC_SIMD_BYTEHASH_AVX2_BODY_H

#include <immintrin.h>

#include "bytehash.h"
#include "transpose_avx2.h"

#define SETS 2

/* pshufb masks: byte b of each 32-bit word to bits 0..7 (zero-extended),
 * or to bits 24..31 (an arithmetic shift by 24 sign-extends it). */
#define Z(b) b, 0x80, 0x80, 0x80, 4 + b, 0x80, 0x80, 0x80, 8 + b, 0x80, 0x80, 0x80, 12 + b, 0x80, 0x80, 0x80
#define S(b) 0x80, 0x80, 0x80, b, 0x80, 0x80, 0x80, 4 + b, 0x80, 0x80, 0x80, 8 + b, 0x80, 0x80, 0x80, 12 + b
static const unsigned char zmask[4][32] __attribute__((aligned(32))) = {
    {Z(0), Z(0)}, {Z(1), Z(1)}, {Z(2), Z(2)}, {Z(3), Z(3)}};
static const unsigned char smask[4][32] __attribute__((aligned(32))) = {
    {S(0), S(0)}, {S(1), S(1)}, {S(2), S(2)}, {S(3), S(3)}};

static inline __m256i zbyte(__m256i w, int b)
{
    if (b == 3)
        return _mm256_srli_epi32(w, 24);
    return _mm256_shuffle_epi8(w, _mm256_load_si256((const __m256i *)(const void *)zmask[b]));
}

static inline __m256i sbyte(__m256i w, int b)
{
    if (b == 3)
        return _mm256_srai_epi32(w, 24);
    return _mm256_srai_epi32(
        _mm256_shuffle_epi8(w, _mm256_load_si256((const __m256i *)(const void *)smask[b])), 24);
}

/* Words 0..3 of the 16 bytes at src[i] + off for eight lanes. */
static inline void row_words(const unsigned char *const *src, size_t off, __m256i w[4])
{
    __m256i r[4];
    for (int i = 0; i < 4; i++)
        r[i] = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(src[i] + off))),
            _mm_loadu_si128((const __m128i *)(const void *)(src[i + 4] + off)), 1);
    plc_transpose4_avx2(r, w);
}

/* NAME hashes with state INIT, STEP(s, c) per byte c (BYTE: zbyte or
 * sbyte, as the program reads its chars), FIN(s) at the end. */
#define DEFINE_BYTEHASH(NAME, BYTE, INIT, STEP, FIN) DEFINE_BYTEHASH_T(NAME, __m256i, BYTE, INIT, STEP, FIN)
/* The same with a state of type T (FIN(s) gives the eight 32-bit hashes). */
#define DEFINE_BYTEHASH_T(NAME, T, BYTE, INIT, STEP, FIN)                                         \
    static void NAME(const void *const *keys, size_t len, size_t n, uint32_t *out)                \
    {                                                                                             \
        const unsigned char *src[PLC_BYTEHASH_LANES];                                             \
        for (size_t i = 0; i < PLC_BYTEHASH_LANES; i++)                                           \
            src[i] = i < n ? keys[i] : keys[0]; /* spare lanes repeat key 0 */                    \
        T s[SETS];                                                                                \
        for (int g = 0; g < SETS; g++)                                                            \
            s[g] = INIT;                                                                          \
        size_t full = len / 16, tail = len % 16;                                                  \
        for (size_t r = 0; r < full; r++) {                                                       \
            __m256i w[SETS][4];                                                                   \
            for (int g = 0; g < SETS; g++)                                                        \
                row_words(src + 8 * g, 16 * r, w[g]);                                             \
            _Pragma("GCC unroll 16") for (int p = 0; p < 16; p++)                                 \
                for (int g = 0; g < SETS; g++)                                                    \
                    STEP(s[g], BYTE(w[g][p / 4], p % 4));                                         \
        }                                                                                         \
        if (tail) {                                                                               \
            __m256i w[SETS][4];                                                                   \
            for (int g = 0; g < SETS; g++)                                                        \
                row_words(src + 8 * g, len - 16, w[g]);                                           \
            _Pragma("GCC unroll 16") for (int p = 0; p < 16; p++) if (p >= 16 - (int)tail)        \
                for (int g = 0; g < SETS; g++)                                                    \
                    STEP(s[g], BYTE(w[g][p / 4], p % 4));                                         \
        }                                                                                         \
        uint32_t all[PLC_BYTEHASH_LANES];                                                         \
        for (int g = 0; g < SETS; g++)                                                            \
            _mm256_storeu_si256((__m256i *)(void *)(all + 8 * g), FIN(s[g]));                     \
        for (size_t i = 0; i < n; i++)                                                            \
            out[i] = all[i];                                                                      \
    }

#endif
