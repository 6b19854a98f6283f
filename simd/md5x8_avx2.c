/*
 * md5x8_avx2.c -- MD5 across eight lanes with AVX2 (see md5x8.h). The
 * message words of block k come in with one gather per word; lanes whose
 * message has fewer blocks keep their state through a blend, so keys of
 * different lengths share a batch.
 */
#include <immintrin.h>

#include "md5x8.h"

#define ROTL(x, s) _mm256_or_si256(_mm256_slli_epi32((x), (s)), _mm256_srli_epi32((x), 32 - (s)))
#define FF(x, y, z) _mm256_xor_si256((z), _mm256_and_si256((x), _mm256_xor_si256((y), (z))))
#define GG(x, y, z) _mm256_xor_si256((y), _mm256_and_si256((z), _mm256_xor_si256((x), (y))))
#define HH(x, y, z) _mm256_xor_si256(_mm256_xor_si256((x), (y)), (z))
#define II(x, y, z) _mm256_xor_si256((y), _mm256_or_si256((x), _mm256_xor_si256((z), ones)))

#define STEP(f, a, b, c, d, x, t, s)                                                              \
    do {                                                                                          \
        (a) = _mm256_add_epi32(_mm256_add_epi32((a), f((b), (c), (d))),                           \
                               _mm256_add_epi32((x), _mm256_set1_epi32((int)(t))));               \
        (a) = _mm256_add_epi32(ROTL((a), (s)), (b));                                              \
    } while (0)

void plc_md5x8_avx2(const unsigned char *padded, const uint32_t blocks[8], uint32_t out[8])
{
    const __m256i ones = _mm256_set1_epi32(-1);
    const __m256i lane_base = _mm256_setr_epi32(0, 1 * (int)PLC_MD5X8_STRIDE / 4, 2 * (int)PLC_MD5X8_STRIDE / 4,
                                                3 * (int)PLC_MD5X8_STRIDE / 4, 4 * (int)PLC_MD5X8_STRIDE / 4,
                                                5 * (int)PLC_MD5X8_STRIDE / 4, 6 * (int)PLC_MD5X8_STRIDE / 4,
                                                7 * (int)PLC_MD5X8_STRIDE / 4);
    const __m256i nblocks = _mm256_loadu_si256((const __m256i *)blocks);
    __m256i a = _mm256_set1_epi32(0x67452301), b = _mm256_set1_epi32((int)0xefcdab89u);
    __m256i c = _mm256_set1_epi32((int)0x98badcfeu), d = _mm256_set1_epi32(0x10325476);
    uint32_t most = 0;
    for (int i = 0; i < 8; i++)
        most = blocks[i] > most ? blocks[i] : most;
    for (uint32_t k = 0; k < most; k++) {
        __m256i w[16];
        const int *base = (const int *)(const void *)(padded + 64u * k);
        for (int j = 0; j < 16; j++)
            w[j] = _mm256_i32gather_epi32(base + j, lane_base, 4);
        __m256i sa = a, sb = b, sc = c, sd = d;
        STEP(FF, a, b, c, d, w[0], 0xd76aa478, 7);
        STEP(FF, d, a, b, c, w[1], 0xe8c7b756, 12);
        STEP(FF, c, d, a, b, w[2], 0x242070db, 17);
        STEP(FF, b, c, d, a, w[3], 0xc1bdceee, 22);
        STEP(FF, a, b, c, d, w[4], 0xf57c0faf, 7);
        STEP(FF, d, a, b, c, w[5], 0x4787c62a, 12);
        STEP(FF, c, d, a, b, w[6], 0xa8304613, 17);
        STEP(FF, b, c, d, a, w[7], 0xfd469501, 22);
        STEP(FF, a, b, c, d, w[8], 0x698098d8, 7);
        STEP(FF, d, a, b, c, w[9], 0x8b44f7af, 12);
        STEP(FF, c, d, a, b, w[10], 0xffff5bb1, 17);
        STEP(FF, b, c, d, a, w[11], 0x895cd7be, 22);
        STEP(FF, a, b, c, d, w[12], 0x6b901122, 7);
        STEP(FF, d, a, b, c, w[13], 0xfd987193, 12);
        STEP(FF, c, d, a, b, w[14], 0xa679438e, 17);
        STEP(FF, b, c, d, a, w[15], 0x49b40821, 22);
        STEP(GG, a, b, c, d, w[1], 0xf61e2562, 5);
        STEP(GG, d, a, b, c, w[6], 0xc040b340, 9);
        STEP(GG, c, d, a, b, w[11], 0x265e5a51, 14);
        STEP(GG, b, c, d, a, w[0], 0xe9b6c7aa, 20);
        STEP(GG, a, b, c, d, w[5], 0xd62f105d, 5);
        STEP(GG, d, a, b, c, w[10], 0x02441453, 9);
        STEP(GG, c, d, a, b, w[15], 0xd8a1e681, 14);
        STEP(GG, b, c, d, a, w[4], 0xe7d3fbc8, 20);
        STEP(GG, a, b, c, d, w[9], 0x21e1cde6, 5);
        STEP(GG, d, a, b, c, w[14], 0xc33707d6, 9);
        STEP(GG, c, d, a, b, w[3], 0xf4d50d87, 14);
        STEP(GG, b, c, d, a, w[8], 0x455a14ed, 20);
        STEP(GG, a, b, c, d, w[13], 0xa9e3e905, 5);
        STEP(GG, d, a, b, c, w[2], 0xfcefa3f8, 9);
        STEP(GG, c, d, a, b, w[7], 0x676f02d9, 14);
        STEP(GG, b, c, d, a, w[12], 0x8d2a4c8a, 20);
        STEP(HH, a, b, c, d, w[5], 0xfffa3942, 4);
        STEP(HH, d, a, b, c, w[8], 0x8771f681, 11);
        STEP(HH, c, d, a, b, w[11], 0x6d9d6122, 16);
        STEP(HH, b, c, d, a, w[14], 0xfde5380c, 23);
        STEP(HH, a, b, c, d, w[1], 0xa4beea44, 4);
        STEP(HH, d, a, b, c, w[4], 0x4bdecfa9, 11);
        STEP(HH, c, d, a, b, w[7], 0xf6bb4b60, 16);
        STEP(HH, b, c, d, a, w[10], 0xbebfbc70, 23);
        STEP(HH, a, b, c, d, w[13], 0x289b7ec6, 4);
        STEP(HH, d, a, b, c, w[0], 0xeaa127fa, 11);
        STEP(HH, c, d, a, b, w[3], 0xd4ef3085, 16);
        STEP(HH, b, c, d, a, w[6], 0x04881d05, 23);
        STEP(HH, a, b, c, d, w[9], 0xd9d4d039, 4);
        STEP(HH, d, a, b, c, w[12], 0xe6db99e5, 11);
        STEP(HH, c, d, a, b, w[15], 0x1fa27cf8, 16);
        STEP(HH, b, c, d, a, w[2], 0xc4ac5665, 23);
        STEP(II, a, b, c, d, w[0], 0xf4292244, 6);
        STEP(II, d, a, b, c, w[7], 0x432aff97, 10);
        STEP(II, c, d, a, b, w[14], 0xab9423a7, 15);
        STEP(II, b, c, d, a, w[5], 0xfc93a039, 21);
        STEP(II, a, b, c, d, w[12], 0x655b59c3, 6);
        STEP(II, d, a, b, c, w[3], 0x8f0ccc92, 10);
        STEP(II, c, d, a, b, w[10], 0xffeff47d, 15);
        STEP(II, b, c, d, a, w[1], 0x85845dd1, 21);
        STEP(II, a, b, c, d, w[8], 0x6fa87e4f, 6);
        STEP(II, d, a, b, c, w[15], 0xfe2ce6e0, 10);
        STEP(II, c, d, a, b, w[6], 0xa3014314, 15);
        STEP(II, b, c, d, a, w[13], 0x4e0811a1, 21);
        STEP(II, a, b, c, d, w[4], 0xf7537e82, 6);
        STEP(II, d, a, b, c, w[11], 0xbd3af235, 10);
        STEP(II, c, d, a, b, w[2], 0x2ad7d2bb, 15);
        STEP(II, b, c, d, a, w[9], 0xeb86d391, 21);
        /* Lanes with a block k keep the sum; the others their old state. */
        __m256i live = _mm256_cmpgt_epi32(nblocks, _mm256_set1_epi32((int)k));
        a = _mm256_blendv_epi8(sa, _mm256_add_epi32(a, sa), live);
        b = _mm256_blendv_epi8(sb, _mm256_add_epi32(b, sb), live);
        c = _mm256_blendv_epi8(sc, _mm256_add_epi32(c, sc), live);
        d = _mm256_blendv_epi8(sd, _mm256_add_epi32(d, sd), live);
    }
    _mm256_storeu_si256((__m256i *)out, a);
}
