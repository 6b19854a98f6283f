/* buckets_simd128.c -- the lines of buckets.h ranked eight suffixes a
 * compare: SSE4.2 on x86-64, NEON on AArch64, through SIMDe. The two masks'
 * 16-bit lanes are packed to bytes, so one movemask gives one bit a lane. */
#include <simde/x86/sse4.2.h>

#include "buckets.h"

static inline uint32_t bkt_rank(const plc_bkt_line *l, int16_t q)
{
    simde__m128i a = simde_mm_load_si128((const simde__m128i *)l->suf);
    simde__m128i b = simde_mm_load_si128((const simde__m128i *)(l->suf + 8));
    simde__m128i qv = simde_mm_set1_epi16(q);
    simde__m128i gt = simde_mm_packs_epi16(simde_mm_cmpgt_epi16(qv, a), simde_mm_cmpgt_epi16(qv, b));
    return (uint32_t)__builtin_popcount((uint32_t)simde_mm_movemask_epi8(gt));
}

/* The rank as a byte offset into suf[] or own[]. */
static inline size_t bkt_rank_bytes(const plc_bkt_line *l, int16_t q)
{
    return 2 * (size_t)bkt_rank(l, q); /* a scaled index, not an add */
}

#include "hw_crc_step.h" /* the dispatcher requires SSE4.2 with these kernels */
#define PLC_HASH64_STEP64(c, w) ((uint64_t)simde_mm_crc32_u64((c), (w)))

#define PLC_BKT_ONE plc_bkt_simd128
#define PLC_BKT_BATCH plc_bkt_batch_simd128
#define PLC_BKT_KEY_BATCH plc_bkt_key_batch_simd128
#define PLC_BKT_KEY_ONE plc_bkt_key_simd128
#define PLC_BKT_INDEX plc_bkt_index_simd128
#define PLC_BKT_KEY_SET plc_bkt_key_set_simd128
#define PLC_BKT_KEY_SETS plc_bkt_key_sets_simd128
#define PLC_BKT_TREE_ONE plc_stree_simd128
#define PLC_BKT_TREE_BATCH plc_stree_batch_simd128
#define PLC_BKT_TREE_INDEX plc_stree_index_simd128
#define PLC_HASH64_STEP hw_crc_step
#include "buckets_body.h"
