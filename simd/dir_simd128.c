/* dir_simd128.c -- the directory lookup of dir.h, leaf ranks two keys at a
 * time: SSE4.2's pcmpgtq on x86-64, NEON on AArch64, through SIMDe; crowded
 * entries take the same instruction set's S+ tree descent. */
#include <simde/x86/sse4.2.h>

#include "dir.h"

static inline uint32_t rank_leaf(const int64_t *key, int64_t x)
{
    simde__m128i xv = simde_mm_set1_epi64x(x);
    simde__m128i a = simde_mm_cmpgt_epi64(xv, simde_mm_loadu_si128((const simde__m128i *)key));
    simde__m128i b = simde_mm_cmpgt_epi64(xv, simde_mm_loadu_si128((const simde__m128i *)(key + 2)));
    simde__m128i acc = simde_mm_sub_epi64(simde_mm_setzero_si128(), simde_mm_add_epi64(a, b));
    return (uint32_t)(simde_mm_cvtsi128_si64(acc) + simde_mm_extract_epi64(acc, 1)) + (key[4] < x);
}

#define PLC_DIR_ONE plc_dir_simd128
#define PLC_DIR_BATCH plc_dir_batch_simd128
#define PLC_DIR_TREE_ONE plc_stree_simd128
#define PLC_DIR_TREE_BATCH plc_stree_batch_simd128
#include "dir_body.h"
