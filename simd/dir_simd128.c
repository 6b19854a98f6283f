/* dir_simd128.c -- the directory lookup of dir.h, leaf ranks two keys at a
 * time: SSE4.2's pcmpgtq on x86-64, NEON on AArch64, through SIMDe
 * (stree_rank_simd128.h); crowded entries take the same instruction set's
 * S+ tree descent. */
#include "dir.h"
#include "stree_rank_simd128.h"

#define PLC_DIR_ONE plc_dir_simd128
#define PLC_DIR_BATCH plc_dir_batch_simd128
#define PLC_DIR_TREE_ONE plc_stree_simd128
#define PLC_DIR_TREE_BATCH plc_stree_batch_simd128
#include "dir_body.h"
