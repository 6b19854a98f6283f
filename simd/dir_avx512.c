/* dir_avx512.c -- the directory lookup of dir.h, a leaf's five keys in one
 * masked compare (-mavx512f/dq/bw/vl, SIMDe); crowded entries take the
 * AVX-512 S+ tree descent. */
#include <simde/x86/avx512.h>

#include "dir.h"

static inline uint32_t rank_leaf(const int64_t *key, int64_t x)
{
    simde__m512i keys = simde_mm512_loadu_si512((const void *)key);
    return (uint32_t)__builtin_popcount(
        simde_mm512_mask_cmpgt_epi64_mask(0x1f, simde_mm512_set1_epi64(x), keys));
}

#define PLC_DIR_ONE plc_dir_avx512
#define PLC_DIR_BATCH plc_dir_batch_avx512
#define PLC_DIR_TREE_ONE plc_stree_avx512
#define PLC_DIR_TREE_BATCH plc_stree_batch_avx512
#include "dir_body.h"
