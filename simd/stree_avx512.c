/* stree_avx512.c -- the S+ tree descent eight keys at a time: one 64-byte
 * load and one vpcmpgtq into a mask per level (-mavx512f/dq/bw/vl, SIMDe).
 * A leaf's line holds 5 keys then the owners: lanes 5..7 are masked off. */
#include <simde/x86/avx512.h>
#include <simde/x86/sse4.2.h>

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

/* The fused kernels hash with the crc32 instruction: every CPU with this
 * instruction set has it, and the dispatcher requires SSE4.2 too. */
static inline uint32_t hw_crc_step(uint32_t crc, uint64_t w)
{
    return (uint32_t)simde_mm_crc32_u64(crc, w);
}

#define PLC_STREE_ONE plc_stree_avx512
#define PLC_STREE_BATCH plc_stree_batch_avx512
#define PLC_STREE_INDEX plc_stree_index_avx512
#define PLC_STREE_KEY_ONE plc_stree_key_avx512
#define PLC_STREE_KEY_BATCH plc_stree_key_batch_avx512
#define PLC_HASH64_STEP hw_crc_step
#include "stree_body.h"
