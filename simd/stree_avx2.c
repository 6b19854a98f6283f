/* stree_avx2.c -- the S+ tree descent four keys at a time (-mavx2, SIMDe).
 * Signed vpcmpgtq on sign-flipped keys; the lane mask is counted. */
#include <simde/x86/avx2.h>
#include <simde/x86/sse4.2.h>

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

/* The fused kernels hash with the crc32 instruction: every CPU with this
 * instruction set has it, and the dispatcher requires SSE4.2 too. */
static inline uint32_t hw_crc_step(uint32_t crc, uint64_t w)
{
    return (uint32_t)simde_mm_crc32_u64(crc, w);
}

#define PLC_STREE_ONE plc_stree_avx2
#define PLC_STREE_BATCH plc_stree_batch_avx2
#define PLC_STREE_INDEX plc_stree_index_avx2
#define PLC_STREE_KEY_ONE plc_stree_key_avx2
#define PLC_STREE_KEY_BATCH plc_stree_key_batch_avx2
#define PLC_HASH64_STEP hw_crc_step
#include "stree_body.h"
