/*
 * stree_rank_avx2.h -- the ranks of an S+ tree line four keys at a time
 * (-mavx2, SIMDe): signed vpcmpgtq on sign-flipped keys, the lane mask
 * counted. rank_node counts an internal line's 8 separators < x,
 * rank_leaf a leaf line's 5 keys < x; stree_avx2.c and dir_avx2.c share
 * them.
 */
#ifndef PLC_SIMD_STREE_RANK_AVX2_H
#define PLC_SIMD_STREE_RANK_AVX2_H

#include <stdint.h>

#include <simde/x86/avx2.h>

static inline uint32_t mask4(simde__m256i keys, simde__m256i xv)
{
    return (uint32_t)simde_mm256_movemask_pd(simde_mm256_castsi256_pd(simde_mm256_cmpgt_epi64(xv, keys)));
}

static inline uint32_t rank_node(const int64_t *key, int64_t x)
{
    simde__m256i xv = simde_mm256_set1_epi64x(x);
    uint32_t lo = mask4(simde_mm256_loadu_si256((const simde__m256i *)key), xv);
    uint32_t hi = mask4(simde_mm256_loadu_si256((const simde__m256i *)(key + 4)), xv);
    return (uint32_t)__builtin_popcount(lo | (hi << 4));
}

static inline uint32_t rank_leaf(const int64_t *key, int64_t x)
{
    simde__m256i xv = simde_mm256_set1_epi64x(x);
    return (uint32_t)__builtin_popcount(mask4(simde_mm256_loadu_si256((const simde__m256i *)key), xv)) +
           (key[4] < x);
}

#endif
