/* buckets_rank_avx2.h -- a line of buckets.h ranked in one 256-bit compare
 * (all 16 suffixes), for buckets_avx2.c and buckets_avx512.c: each lane
 * gives two mask bits, so the rank is half the popcount (and the popcount
 * itself the rank's byte offset into suf[] and own[]). */
#include <simde/x86/avx2.h>
#include <simde/x86/sse4.2.h>

#include "buckets.h"

static inline uint32_t bkt_rank(const plc_bkt_line *l, int16_t q)
{
    simde__m256i s = simde_mm256_load_si256((const simde__m256i *)l->suf);
    simde__m256i qv = simde_mm256_set1_epi16(q);
    uint32_t gt = (uint32_t)simde_mm256_movemask_epi8(simde_mm256_cmpgt_epi16(qv, s));
    return (uint32_t)__builtin_popcount(gt) >> 1;
}

/* The same rank as a byte offset into suf[] or own[] (2r): the popcount. */
static inline size_t bkt_rank_bytes(const plc_bkt_line *l, int16_t q)
{
    simde__m256i s = simde_mm256_load_si256((const simde__m256i *)l->suf);
    simde__m256i qv = simde_mm256_set1_epi16(q);
    uint32_t gt = (uint32_t)simde_mm256_movemask_epi8(simde_mm256_cmpgt_epi16(qv, s));
    return (uint32_t)__builtin_popcount(gt);
}

#include "hw_crc_step.h" /* the dispatcher requires SSE4.2 with these kernels */
#define PLC_HASH64_STEP64(c, w) ((uint64_t)simde_mm_crc32_u64((c), (w)))
