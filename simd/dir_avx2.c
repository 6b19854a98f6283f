/* dir_avx2.c -- the directory lookup of dir.h, leaf ranks four keys at a
 * time (-mavx2, SIMDe; stree_rank_avx2.h); crowded entries take the AVX2
 * S+ tree descent. */
#include <simde/x86/avx2.h>

#include "dir.h"
#include "stree_rank_avx2.h"

/* The first pass of a batch group over four queries: the entries by one
 * gather, OWNER and SPLIT answers by blends (as dir_body.h's scalar loop);
 * returns the mask of queries that need more (leaf, crowded, close call). */
static inline uint32_t first4(const uint32_t *entry, const uint64_t *h, uint32_t shift,
                              uint32_t rshift, uint32_t *e, uint32_t *owners)
{
    simde__m256i x = simde_mm256_loadu_si256((const simde__m256i *)h);
    simde__m256i idx = simde_mm256_srl_epi64(x, simde_mm_cvtsi32_si128((int)shift));
    simde__m128i v = simde_mm256_i64gather_epi32((const int *)entry, idx, 4);
    simde__m256i r64 = simde_mm256_srl_epi64(x, simde_mm_cvtsi32_si128((int)rshift));
    simde__m256i low32 = simde_mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    simde__m128i smask = simde_mm_set1_epi32((int)PLC_DIR_SMASK);
    simde__m128i omask = simde_mm_set1_epi32((int)PLC_DIR_OMASK);
    simde__m128i r = simde_mm_and_si128(
        simde_mm256_castsi256_si128(simde_mm256_permutevar8x32_epi32(r64, low32)), smask);
    simde__m128i t = simde_mm_and_si128(simde_mm_srli_epi32(v, 2 * PLC_DIR_OBITS), smask);
    simde__m128i lower = simde_mm_cmpgt_epi32(t, r); /* both below 2^10: signed is fine */
    simde__m128i split = simde_mm_and_si128(
        simde_mm_blendv_epi8(simde_mm_srli_epi32(v, PLC_DIR_OBITS), v, lower), omask);
    simde__m128i own = simde_mm_srai_epi32(v, 31); /* all ones for OWNER entries */
    simde__m128i res = simde_mm_blendv_epi8(
        split, simde_mm_and_si128(v, simde_mm_set1_epi32(0x7FFFFFFF)), own);
    simde_mm_storeu_si128((simde__m128i *)owners, res);
    simde_mm_storeu_si128((simde__m128i *)e, v);
    /* not OWNER, and a leaf entry (below SPLIT; signed is fine for v < 2^31),
     * BIG, or a split too close to call */
    simde__m128i need = simde_mm_or_si128(
        simde_mm_cmpgt_epi32(simde_mm_set1_epi32((int)PLC_DIR_SPLIT), v),
        simde_mm_or_si128(simde_mm_cmpeq_epi32(v, simde_mm_set1_epi32((int)PLC_DIR_BIG)),
                          simde_mm_cmpeq_epi32(r, t)));
    need = simde_mm_andnot_si128(own, need);
    return (uint32_t)simde_mm_movemask_ps(simde_mm_castsi128_ps(need));
}

#define PLC_DIR_FIRST4 first4
#define PLC_DIR_ONE plc_dir_avx2
#define PLC_DIR_BATCH plc_dir_batch_avx2
#define PLC_DIR_TREE_ONE plc_stree_avx2
#define PLC_DIR_TREE_BATCH plc_stree_batch_avx2
#include "dir_body.h"
