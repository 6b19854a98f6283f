/*
 * stree_simd128.c -- the S+ tree descent two keys at a time: SSE4.2's
 * pcmpgtq on x86-64 (built with -msse4.2), NEON's vcgtq_s64 on AArch64,
 * both through SIMDe. Compare results (all-ones lanes, i.e. -1) are
 * subtracted from a counter, so no popcount instruction is needed.
 */
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

/* The fused kernels hash with the crc32 instruction: every CPU with this
 * instruction set has it, and the dispatcher requires SSE4.2 too. */
static inline uint32_t hw_crc_step(uint32_t crc, uint64_t w)
{
    return (uint32_t)simde_mm_crc32_u64(crc, w);
}

#define PLC_STREE_ONE plc_stree_simd128
#define PLC_STREE_BATCH plc_stree_batch_simd128
#define PLC_STREE_INDEX plc_stree_index_simd128
#define PLC_STREE_KEY_ONE plc_stree_key_simd128
#define PLC_STREE_KEY_BATCH plc_stree_key_batch_simd128
#define PLC_HASH64_STEP hw_crc_step
#include "stree_body.h"
