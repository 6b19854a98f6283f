/*
 * stree_rank_simd128.h -- the ranks of an S+ tree line two keys at a time:
 * SSE4.2's pcmpgtq on x86-64, NEON's vcgtq_s64 on AArch64, both through
 * SIMDe. Compare results (all-ones lanes, i.e. -1) are subtracted from a
 * counter, so no popcount instruction is needed. rank_node counts an
 * internal line's 8 separators < x, rank_leaf a leaf line's 5 keys < x;
 * stree_simd128.c and dir_simd128.c share them.
 */
#ifndef PLC_SIMD_STREE_RANK_SIMD128_H
#define PLC_SIMD_STREE_RANK_SIMD128_H

#include <stdint.h>

#include <simde/x86/sse4.2.h>

static inline uint32_t count_pair(simde__m128i acc)
{
    return (uint32_t)(simde_mm_cvtsi128_si64(acc) + simde_mm_extract_epi64(acc, 1));
}

static inline uint32_t rank_node(const int64_t *key, int64_t x)
{
    simde__m128i xv = simde_mm_set1_epi64x(x), acc = simde_mm_setzero_si128();
    for (int i = 0; i < 8; i += 2)
        acc = simde_mm_sub_epi64(
            acc, simde_mm_cmpgt_epi64(xv, simde_mm_loadu_si128((const simde__m128i *)(key + i))));
    return count_pair(acc);
}

static inline uint32_t rank_leaf(const int64_t *key, int64_t x)
{
    simde__m128i xv = simde_mm_set1_epi64x(x);
    simde__m128i a = simde_mm_cmpgt_epi64(xv, simde_mm_loadu_si128((const simde__m128i *)key));
    simde__m128i b = simde_mm_cmpgt_epi64(xv, simde_mm_loadu_si128((const simde__m128i *)(key + 2)));
    return count_pair(simde_mm_sub_epi64(simde_mm_setzero_si128(), simde_mm_add_epi64(a, b))) +
           (key[4] < x);
}

#endif
