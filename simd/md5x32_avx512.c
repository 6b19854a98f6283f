/*
 * md5x32_avx512.c -- MD5 of 32 keys with AVX-512 (see md5x8.h): two sets of
 * sixteen lanes whose steps alternate, as md5x8_avx2.c does with eight.
 * AVX-512 makes each step shorter as well as wider: every boolean function
 * is one vpternlogd and every rotation one vprold (AVX2 needs two or three
 * instructions for each), and the blend of lanes that have no block k is a
 * masked add.
 *
 * Message words: the rows of lanes i, i + 4, i + 8 and i + 12 share a
 * 512-bit register; a 4x4 word transpose in each 128-bit lane gives one
 * register per word, its elements in lane order.
 */
#include <immintrin.h>
#include <string.h>

#include "md5_pad.h"

#define SET 16u /* lanes of one set */

static inline __m512i broadcast_row(const unsigned char *b)
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)b));
}

static inline __m128i row(const unsigned char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* Message words 0..15 of one block for the sixteen lanes whose sources are
 * src[0..15], from the plans of its four rows. */
static inline void load_words(const unsigned char *const *src, const plc_md5_row *plan, __m512i w[16])
{
    for (int q = 0; q < 4; q++) {
        const plc_md5_row *p = &plan[q];
        if (p->kind == PLC_MD5_ROW_CONST) {
            uint32_t c[4];
            memcpy(c, p->cst, sizeof c);
            for (int j = 0; j < 4; j++)
                w[4 * q + j] = _mm512_set1_epi32((int)c[j]);
            continue;
        }
        __m512i r[4];
        for (int i = 0; i < 4; i++) {
            __m512i v = _mm512_castsi128_si512(row(src[i] + p->off));
            v = _mm512_inserti32x4(v, row(src[i + 4] + p->off), 1);
            v = _mm512_inserti32x4(v, row(src[i + 8] + p->off), 2);
            v = _mm512_inserti32x4(v, row(src[i + 12] + p->off), 3);
            if (p->kind == PLC_MD5_ROW_PARTIAL)
                v = _mm512_or_si512(_mm512_shuffle_epi8(v, broadcast_row(p->mask)),
                                    broadcast_row(p->cst));
            r[i] = v;
        }
        __m512i t0 = _mm512_unpacklo_epi32(r[0], r[1]), t1 = _mm512_unpackhi_epi32(r[0], r[1]);
        __m512i t2 = _mm512_unpacklo_epi32(r[2], r[3]), t3 = _mm512_unpackhi_epi32(r[2], r[3]);
        w[4 * q + 0] = _mm512_unpacklo_epi64(t0, t2);
        w[4 * q + 1] = _mm512_unpackhi_epi64(t0, t2);
        w[4 * q + 2] = _mm512_unpacklo_epi64(t1, t3);
        w[4 * q + 3] = _mm512_unpackhi_epi64(t1, t3);
    }
}

/* The four functions as truth tables (vpternlogd, operands A, B, C: bit
 * A << 2 | B << 1 | C of the immediate): F = x ? y : z (0xca), G = z ? x :
 * y (0xca with z first), H = x ^ y ^ z (0x96), I = y ^ (x | ~z) (0x39). */
#define FF(x, y, z) _mm512_ternarylogic_epi32((x), (y), (z), 0xca)
#define GG(x, y, z) _mm512_ternarylogic_epi32((z), (x), (y), 0xca)
#define HH(x, y, z) _mm512_ternarylogic_epi32((x), (y), (z), 0x96)
#define II(x, y, z) _mm512_ternarylogic_epi32((x), (y), (z), 0x39)

#define STEP1(f, a, b, c, d, x, t, s)                                                             \
    do {                                                                                          \
        (a) = _mm512_add_epi32((a), _mm512_add_epi32((x), _mm512_set1_epi32((int)(t))));          \
        (a) = _mm512_add_epi32((a), f((b), (c), (d)));                                            \
        (a) = _mm512_add_epi32(_mm512_rol_epi32((a), (s)), (b));                                  \
    } while (0)
#define STEP(f, a, b, c, d, i, t, s)                                                              \
    do {                                                                                          \
        STEP1(f, a##0, b##0, c##0, d##0, w0[i], t, s);                                            \
        STEP1(f, a##1, b##1, c##1, d##1, w1[i], t, s);                                            \
    } while (0)

void plc_md5x32_avx512(const void *const *keys, const size_t *lens, size_t n, uint32_t *out)
{
    _Alignas(64) unsigned char slots[PLC_MD5X32_LANES * PLC_MD5_SLOT];
    const unsigned char *src[PLC_MD5X32_LANES];
    _Alignas(64) uint32_t nb[PLC_MD5X32_LANES];
    plc_md5_row plan[4 * PLC_MD5X8_MAX_BLOCKS];
    uint32_t most = plc_md5_prepare(keys, lens, n, PLC_MD5X32_LANES, slots, src, nb, plan);

    const __m512i nb0 = _mm512_load_si512((const void *)nb);
    const __m512i nb1 = _mm512_load_si512((const void *)(nb + SET));
    __m512i a0 = _mm512_set1_epi32(0x67452301), b0 = _mm512_set1_epi32((int)0xefcdab89u);
    __m512i c0 = _mm512_set1_epi32((int)0x98badcfeu), d0 = _mm512_set1_epi32(0x10325476);
    __m512i a1 = a0, b1 = b0, c1 = c0, d1 = d0;
    for (uint32_t k = 0; k < most; k++) {
        __m512i w0[16], w1[16];
        load_words(src, plan + 4u * k, w0);
        load_words(src + SET, plan + 4u * k, w1);
        __m512i sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0;
        __m512i sa1 = a1, sb1 = b1, sc1 = c1, sd1 = d1;
        PLC_MD5_STEPS_0_60(STEP)
        /* Lanes with a block k add the sum; the others keep their state. */
        __m512i kk = _mm512_set1_epi32((int)k);
        __mmask16 live0 = _mm512_cmpgt_epu32_mask(nb0, kk), live1 = _mm512_cmpgt_epu32_mask(nb1, kk);
        if (k + 1 < most) {
            PLC_MD5_STEPS_61_63(STEP)
            b0 = _mm512_mask_add_epi32(sb0, live0, b0, sb0);
            c0 = _mm512_mask_add_epi32(sc0, live0, c0, sc0);
            d0 = _mm512_mask_add_epi32(sd0, live0, d0, sd0);
            b1 = _mm512_mask_add_epi32(sb1, live1, b1, sb1);
            c1 = _mm512_mask_add_epi32(sc1, live1, c1, sc1);
            d1 = _mm512_mask_add_epi32(sd1, live1, d1, sd1);
        }
        a0 = _mm512_mask_add_epi32(sa0, live0, a0, sa0);
        a1 = _mm512_mask_add_epi32(sa1, live1, a1, sa1);
    }
    _Alignas(64) uint32_t all[PLC_MD5X32_LANES];
    _mm512_store_si512((void *)all, a0);
    _mm512_store_si512((void *)(all + SET), a1);
    memcpy(out, all, n * sizeof *out);
}
