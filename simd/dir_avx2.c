/* dir_avx2.c -- the directory lookup of dir.h, leaf ranks four keys at a
 * time (-mavx2, SIMDe); crowded entries take the AVX2 S+ tree descent. */
#include <simde/x86/avx2.h>

#include "dir.h"

static inline uint32_t rank_leaf(const int64_t *key, int64_t x)
{
    simde__m256i xv = simde_mm256_set1_epi64x(x);
    simde__m256i gt = simde_mm256_cmpgt_epi64(xv, simde_mm256_loadu_si256((const simde__m256i *)key));
    uint32_t m = (uint32_t)simde_mm256_movemask_pd(simde_mm256_castsi256_pd(gt));
    return (uint32_t)__builtin_popcount(m) + (key[4] < x);
}

#define PLC_DIR_ONE plc_dir_avx2
#define PLC_DIR_BATCH plc_dir_batch_avx2
#define PLC_DIR_TREE_ONE plc_stree_avx2
#define PLC_DIR_TREE_BATCH plc_stree_batch_avx2
#include "dir_body.h"
