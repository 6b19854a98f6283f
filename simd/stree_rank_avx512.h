/*
 * stree_rank_avx512.h -- the ranks of an S+ tree line in one 64-byte load
 * and one vpcmpgtq into a mask (-mavx512f/dq/bw/vl, SIMDe). rank_node
 * counts an internal line's 8 separators < x; rank_leaf a leaf line's 5
 * keys < x, lanes 5..7 (the owners) masked off. stree_avx512.c and
 * dir_avx512.c share them.
 */
#ifndef PLC_SIMD_STREE_RANK_AVX512_H
#define PLC_SIMD_STREE_RANK_AVX512_H

#include <stdint.h>

#include <simde/x86/avx512.h>

static inline uint32_t rank_node(const int64_t *key, int64_t x)
{
    simde__m512i keys = simde_mm512_loadu_si512((const void *)key);
    return (uint32_t)__builtin_popcount(simde_mm512_cmpgt_epi64_mask(simde_mm512_set1_epi64(x), keys));
}

static inline uint32_t rank_leaf(const int64_t *key, int64_t x)
{
    simde__m512i keys = simde_mm512_loadu_si512((const void *)key);
    return (uint32_t)__builtin_popcount(
        simde_mm512_mask_cmpgt_epi64_mask(0x1f, simde_mm512_set1_epi64(x), keys));
}

#endif
