/*
 * md5x8_avx2.c -- MD5 of sixteen keys with AVX2 (see md5x8.h): two sets of
 * eight lanes whose steps alternate in the code, so the out-of-order core
 * always has an independent step to issue while the other waits on its
 * add-rotate-add chain.
 *
 * Each key is padded into its own slot of PLC_MD5X8_MAX_BLOCKS blocks on
 * the stack (only the blocks the key uses are written). The 16 message
 * words of block k for eight lanes come from 16-byte rows: rows of lanes i
 * and i + 4 share a register, and a 4x4 word transpose in each 128-bit half
 * turns them into one register per word (16 loads, 16 inserts and 32
 * unpacks per set and block, against 16 gathers of eight loads each).
 */
#include <immintrin.h>
#include <string.h>

#include "md5_pad.h"
#include "transpose_avx2.h"

#define SLOT PLC_MD5_SLOT

static inline __m256i broadcast_row(const unsigned char *b)
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)b));
}

/* Message words 0..15 of one block for the eight lanes whose sources are
 * src[0..7], from the plans of its four rows. */
static inline void load_words(const unsigned char *const *src, const plc_md5_row *plan, __m256i w[16])
{
    for (int q = 0; q < 4; q++) {
        const plc_md5_row *p = &plan[q];
        if (p->kind == PLC_MD5_ROW_CONST) {
            __m256i cst = broadcast_row(p->cst);
            for (int j = 0; j < 4; j++)
                w[4 * q + j] = _mm256_permutevar8x32_epi32(cst, _mm256_set1_epi32(j));
            continue;
        }
        __m256i r[4];
        for (int i = 0; i < 4; i++) {
            r[i] = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(src[i] + p->off))),
                _mm_loadu_si128((const __m128i *)(const void *)(src[i + 4] + p->off)), 1);
            if (p->kind == PLC_MD5_ROW_PARTIAL)
                r[i] = _mm256_or_si256(_mm256_shuffle_epi8(r[i], broadcast_row(p->mask)),
                                       broadcast_row(p->cst));
        }
        plc_transpose4_avx2(r, w + 4 * q);
    }
}

#define FF(x, y, z) _mm256_xor_si256((z), _mm256_and_si256((x), _mm256_xor_si256((y), (z))))
#define GG(x, y, z) _mm256_xor_si256((y), _mm256_and_si256((z), _mm256_xor_si256((x), (y))))
#define HH(x, y, z) _mm256_xor_si256(_mm256_xor_si256((x), (y)), (z))
#define II(x, y, z) _mm256_xor_si256((y), _mm256_or_si256((x), _mm256_xor_si256((z), ones)))
/* A rotation by 16 is one byte shuffle. */
#define ROTL(x, s)                                                                                \
    ((s) == 16 ? _mm256_shuffle_epi8((x), rot16)                                                  \
               : _mm256_or_si256(_mm256_slli_epi32((x), (s)), _mm256_srli_epi32((x), 32 - (s))))

/* a + x + t first: a and x are ready long before b, the step's chain is
 * f(b, c, d), one add, the rotation and the add of b. */
#define STEP1(f, a, b, c, d, x, t, s)                                                             \
    do {                                                                                          \
        (a) = _mm256_add_epi32((a), _mm256_add_epi32((x), _mm256_set1_epi32((int)(t))));          \
        (a) = _mm256_add_epi32((a), f((b), (c), (d)));                                            \
        (a) = _mm256_add_epi32(ROTL((a), (s)), (b));                                              \
    } while (0)
/* One step in both sets. */
#define STEP(f, a, b, c, d, i, t, s)                                                              \
    do {                                                                                          \
        STEP1(f, a##0, b##0, c##0, d##0, w0[i], t, s);                                            \
        STEP1(f, a##1, b##1, c##1, d##1, w1[i], t, s);                                            \
    } while (0)

void plc_md5x16_avx2(const void *const *keys, const size_t *lens, size_t n, uint32_t *out)
{
    _Alignas(64) unsigned char slots[PLC_MD5X16_LANES * SLOT];
    const unsigned char *src[PLC_MD5X16_LANES];
    uint32_t nb[PLC_MD5X16_LANES];
    plc_md5_row plan[4 * PLC_MD5X8_MAX_BLOCKS];
    uint32_t most = plc_md5_prepare(keys, lens, n, PLC_MD5X16_LANES, slots, src, nb, plan);

    const __m256i ones = _mm256_set1_epi32(-1);
    const __m256i rot16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3,
                                           0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
    const __m256i nb0 = _mm256_loadu_si256((const __m256i *)(const void *)nb);
    const __m256i nb1 = _mm256_loadu_si256((const __m256i *)(const void *)(nb + 8));
    __m256i a0 = _mm256_set1_epi32(0x67452301), b0 = _mm256_set1_epi32((int)0xefcdab89u);
    __m256i c0 = _mm256_set1_epi32((int)0x98badcfeu), d0 = _mm256_set1_epi32(0x10325476);
    __m256i a1 = a0, b1 = b0, c1 = c0, d1 = d0;
    for (uint32_t k = 0; k < most; k++) {
        __m256i w0[16], w1[16];
        load_words(src, plan + 4u * k, w0);
        load_words(src + 8, plan + 4u * k, w1);
        __m256i sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0;
        __m256i sa1 = a1, sb1 = b1, sc1 = c1, sd1 = d1;
        PLC_MD5_STEPS_0_60(STEP);
        /* The last three steps only feed b, c and d: the first digest
         * word is a's sum, so they are left out. */
        /* Lanes with a block k keep the sum; the others their old state. */
        __m256i kk = _mm256_set1_epi32((int)k);
        __m256i live0 = _mm256_cmpgt_epi32(nb0, kk), live1 = _mm256_cmpgt_epi32(nb1, kk);
        if (k + 1 < most) {
            PLC_MD5_STEPS_61_63(STEP);
            b0 = _mm256_blendv_epi8(sb0, _mm256_add_epi32(b0, sb0), live0);
            c0 = _mm256_blendv_epi8(sc0, _mm256_add_epi32(c0, sc0), live0);
            d0 = _mm256_blendv_epi8(sd0, _mm256_add_epi32(d0, sd0), live0);
            b1 = _mm256_blendv_epi8(sb1, _mm256_add_epi32(b1, sb1), live1);
            c1 = _mm256_blendv_epi8(sc1, _mm256_add_epi32(c1, sc1), live1);
            d1 = _mm256_blendv_epi8(sd1, _mm256_add_epi32(d1, sd1), live1);
        }
        a0 = _mm256_blendv_epi8(sa0, _mm256_add_epi32(a0, sa0), live0);
        a1 = _mm256_blendv_epi8(sa1, _mm256_add_epi32(a1, sa1), live1);
    }
    uint32_t all[PLC_MD5X16_LANES];
    _mm256_storeu_si256((__m256i *)(void *)all, a0);
    _mm256_storeu_si256((__m256i *)(void *)(all + 8), a1);
    memcpy(out, all, n * sizeof *out);
}
