/*
 * walk_avx512.c -- the replica walk's window (walk.h) in AVX-512: the
 * three leaf lines loaded whole, the window's owners permuted out of them
 * (a table of indexes for each starting slot j), their zones gathered, a
 * zone bit per lane and the OR of the earlier lanes' bits (a prefix over
 * four lane shifts) giving the first token of each new zone as a mask;
 * the picks are compressed to the front and the first `need` stored.
 * No branch depends on the tokens.
 */
#include <immintrin.h>

#include "buckets.h"
#include "walk.h"

/* The zone mask and picks of a window of 16 owners (dwords), as above:
 * the first `need` tokens of new zones, or 0 when fewer are there. */
static inline __m512i gather_zones(__m512i own, __mmask16 in, const uint32_t *zone,
                                   uint32_t zstride)
{
    __m512i at = _mm512_mullo_epi32(own, _mm512_set1_epi32((int)zstride)); /* < 2^31 */
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), in, at, zone, 4);
}

static inline uint32_t window_picks(__m512i own, __m512i z, __mmask16 in, uint32_t taken,
                                    uint32_t need, uint32_t *out, __mmask16 *fresh_out,
                                    __m512i *bit_out)
{
    __m512i bit = _mm512_sllv_epi32(_mm512_set1_epi32(1), z);
    /* OR of the bits of lanes 0..k, then shifted up one lane: lanes < k */
    const __m512i zero = _mm512_setzero_si512();
    __m512i p = _mm512_or_si512(bit, _mm512_alignr_epi32(bit, zero, 15));
    p = _mm512_or_si512(p, _mm512_alignr_epi32(p, zero, 14));
    p = _mm512_or_si512(p, _mm512_alignr_epi32(p, zero, 12));
    p = _mm512_or_si512(p, _mm512_alignr_epi32(p, zero, 8));
    __m512i before =
        _mm512_or_si512(_mm512_alignr_epi32(p, zero, 15), _mm512_set1_epi32((int)taken));
    __mmask16 fresh = _mm512_mask_testn_epi32_mask(in, bit, before);
    uint32_t pc = (uint32_t)_mm_popcnt_u32(fresh), w = pc < need ? pc : need;
    __m512i picks = _mm512_maskz_compress_epi32(fresh, own);
    if (__builtin_expect(need <= 4, 1)) {
        /* scalar stores: a masked vector store does not forward to the
         * caller's loads of the set, which then wait for it to retire */
        __m128i x = _mm512_castsi512_si128(picks);
        uint32_t sink, v[4] = {(uint32_t)_mm_cvtsi128_si32(x), (uint32_t)_mm_extract_epi32(x, 1),
                               (uint32_t)_mm_extract_epi32(x, 2), (uint32_t)_mm_extract_epi32(x, 3)};
        for (uint32_t i = 0; i < 4; i++)
            *(i < w ? out + i : &sink) = v[i];
    } else {
        _mm512_mask_storeu_epi32(out, (__mmask16)((1u << w) - 1), picks);
    }
    *fresh_out = fresh;
    *bit_out = bit;
    return w;
}

uint32_t plc_walk_window_avx512(const plc_stree_leaf *leaf, uint32_t j, uint32_t lim,
                                const uint32_t *zone, uint32_t zstride, uint32_t *taken,
                                uint32_t need, uint32_t *out)
{
    /* lane_idx[j][k]: lane k's owner, slot j + k of the three leaves. Tokens
     * of the first two index the pair (line 0, line 1) as 32 dwords (a
     * leaf's owners are dwords 10..14 of its line), those of the third line
     * 2 alone (dwords 10..14, the low four bits of j + k). Lanes past 14 - j
     * are never read. */
    static const uint32_t lane_idx[PLC_STREE_LEAF][16] = {
#define L(j)                                                                                   \
    {(j) + 0 < 10 ? 16 * (((j) + 0) / 5) + 10 + ((j) + 0) % 5 : (j) + 0,                       \
     (j) + 1 < 10 ? 16 * (((j) + 1) / 5) + 10 + ((j) + 1) % 5 : (j) + 1,                       \
     (j) + 2 < 10 ? 16 * (((j) + 2) / 5) + 10 + ((j) + 2) % 5 : (j) + 2,                       \
     (j) + 3 < 10 ? 16 * (((j) + 3) / 5) + 10 + ((j) + 3) % 5 : (j) + 3,                       \
     (j) + 4 < 10 ? 16 * (((j) + 4) / 5) + 10 + ((j) + 4) % 5 : (j) + 4,                       \
     (j) + 5 < 10 ? 16 * (((j) + 5) / 5) + 10 + ((j) + 5) % 5 : (j) + 5,                       \
     (j) + 6 < 10 ? 16 * (((j) + 6) / 5) + 10 + ((j) + 6) % 5 : (j) + 6,                       \
     (j) + 7 < 10 ? 16 * (((j) + 7) / 5) + 10 + ((j) + 7) % 5 : (j) + 7,                       \
     (j) + 8 < 10 ? 16 * (((j) + 8) / 5) + 10 + ((j) + 8) % 5 : (j) + 8,                       \
     (j) + 9 < 10 ? 16 * (((j) + 9) / 5) + 10 + ((j) + 9) % 5 : (j) + 9,                       \
     (j) + 10, (j) + 11, (j) + 12, (j) + 13, (j) + 14 > 14 ? 14 : (j) + 14, 14}
        L(0), L(1), L(2), L(3), L(4)
#undef L
    };
    const __m512i *line = (const __m512i *)(const void *)leaf;
    __m512i a = _mm512_load_si512(line), b = _mm512_load_si512(line + 1),
            c = _mm512_load_si512(line + 2);
    __m512i idx = _mm512_loadu_si512(lane_idx[j]);
    __mmask16 third = (__mmask16)((0xFFFFu << (10 - j)) & 0x7FFFu);
    __m512i own = _mm512_permutex2var_epi32(a, idx, b);
    own = _mm512_mask_permutexvar_epi32(own, third, idx, c);
    __mmask16 in = (__mmask16)((1u << lim) - 1), fresh;
    __m512i bit;
    uint32_t w = window_picks(own, gather_zones(own, in, zone, zstride), in, *taken, need, out,
                              &fresh, &bit);
    if (w < need) /* the lap goes on (rare): the zones of this window's picks, all of them */
        *taken |= (uint32_t)_mm512_mask_reduce_or_epi32(fresh, bit);
    return w;
}

uint32_t plc_walk_lines_avx512(const plc_bkt *k, uint64_t h, const uint32_t *zone,
                               uint32_t zstride, const uint16_t *zone16, uint32_t need,
                               uint32_t *out)
{
    uint64_t i = h >> k->shift;
    if (__builtin_expect(i + 1 >= (uint64_t)1 << k->bits, 0))
        return 0; /* the last line: no line after it */
    const __m512i *line = (const __m512i *)(const void *)&k->line[i];
    __m512i a = _mm512_load_si512(line), b = _mm512_load_si512(line + 1);
    uint32_t ki = k->base[i + 1] - k->base[i]; /* tokens in line i */
    __m256i q = _mm256_set1_epi16(plc_bkt_suffix(h, k->sshift));
    __m256i suf = _mm512_castsi512_si256(a);
    uint32_t r = (uint32_t)_mm_popcnt_u32(_mm256_cmplt_epi16_mask(suf, q));
    __mmask16 tie = _mm256_cmpeq_epi16_mask(suf, q);
    /* lane m: own[r + m] of line i while m < d = ki - r (own[ki] is the
     * next line's own[0]), then own[m - d] of line i + 1; words 16.. and
     * 48.. of the two lines */
    uint32_t d = ki - r;
    const __m512i iota = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
                                          17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2,
                                          1, 0);
    __mmask32 first = _mm512_cmplt_epu16_mask(iota, _mm512_set1_epi16((short)d));
    __m512i idx = _mm512_mask_add_epi16(_mm512_add_epi16(iota, _mm512_set1_epi16((short)(48 - d))),
                                        first, iota, _mm512_set1_epi16((short)(16 + r)));
    __m256i own16 = _mm512_castsi512_si256(_mm512_permutex2var_epi16(a, idx, b));
    __mmask16 ask = _mm256_cmpeq_epi16_mask(own16, _mm256_set1_epi16((short)PLC_BKT_ASK_TREE));
    /* a tie, a crowded line (or node 65,535) or a line past 15 tokens: the
     * slot's walk decides */
    if (__builtin_expect(tie || ask || ki > 15, 0))
        return 0;
    __m512i own = _mm512_cvtepu16_epi32(own16), z;
    if (zone16) { /* nodes < 128: two word permutes of the zone table, by the owner's bit 6 */
        __m512i o = _mm512_castsi256_si512(own16);
        __m512i lo = _mm512_permutex2var_epi16(_mm512_loadu_si512(zone16), o,
                                               _mm512_loadu_si512(zone16 + 32));
        __m512i hi = _mm512_permutex2var_epi16(_mm512_loadu_si512(zone16 + 64), o,
                                               _mm512_loadu_si512(zone16 + 96));
        __mmask32 upper = _mm512_test_epi16_mask(o, _mm512_set1_epi16(64));
        z = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(_mm512_mask_mov_epi16(lo, upper, hi)));
    } else {
        z = gather_zones(own, 0xFFFF, zone, zstride);
    }
    __mmask16 fresh;
    __m512i bit;
    uint32_t w = window_picks(own, z, 0xFFFF, 0, need, out, &fresh, &bit);
    return w == need ? w : 0;
}
