/*
 * bytehash_avx512.c -- the byte hashes that AVX-512 shortens (see
 * bytehash.h), on the same 256-bit registers and machinery as
 * bytehash_avx2.c (bytehash_avx2_body.h). haproxy's wt6 rotates both state
 * words by per-lane counts at every byte: AVX-512 VL's vprolvd is one
 * instruction where AVX2 needs two shifts, a subtraction and an or, and it
 * takes its count modulo 32, so the masks that cut the counts to five bits
 * go too: the chain from one byte to the next is about half as long.
 */
#include "bytehash_avx2_body.h"

typedef struct wt6v {
    __m256i h0, h1, s0, s1; /* s0, s1: rotation counts, used modulo 32 */
} wt6v;
#define WT6_INIT                                                                                  \
    ((wt6v){_mm256_set1_epi32((int)0xa53c965au), _mm256_set1_epi32(0x5ca6953a),                  \
            _mm256_set1_epi32(6), _mm256_set1_epi32(18)})
/* haproxy: h0 = ~(h0 ^ c), h1 = ~(h1 + c), h0 = rotl(h1, s0), h1 = rotl(h0,
 * s1), t = ((h0 >> 16) ^ h1) & 0xffff, s0 = t & 31, s1 = t >> 11: with
 * counts taken modulo 32, s0 = (h0 >> 16) ^ h1 and s1 = that >> 11 give
 * the same rotations (bits 0..4, and bits 11..15). */
#define WT6(s, c)                                                                                 \
    do {                                                                                          \
        __m256i c_ = (c);                                                                         \
        __m256i h0_ = _mm256_ternarylogic_epi32((s).h0, c_, c_, 0xc3); /* ~(h0 ^ c) */            \
        __m256i h1_ = _mm256_xor_si256(_mm256_add_epi32((s).h1, c_), _mm256_set1_epi32(-1));      \
        (s).h0 = _mm256_rolv_epi32(h1_, (s).s0);                                                  \
        (s).h1 = _mm256_rolv_epi32(h0_, (s).s1);                                                  \
        (s).s0 = _mm256_xor_si256(_mm256_srli_epi32((s).h0, 16), (s).h1);                         \
        (s).s1 = _mm256_srli_epi32((s).s0, 11);                                                   \
    } while (0)
#define WT6_FIN(s) _mm256_xor_si256((s).h0, (s).h1)
DEFINE_BYTEHASH_T(wt6, wt6v, zbyte, WT6_INIT, WT6, WT6_FIN)

plc_bytehash_fn plc_bytehash_avx512(int which)
{
    return which == PLC_BH_WT6 ? wt6 : NULL;
}
