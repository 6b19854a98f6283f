/* dir_avx512.c -- the directory lookup of dir.h, a leaf's five keys in one
 * masked compare (-mavx512f/dq/bw/vl, SIMDe; stree_rank_avx512.h); crowded
 * entries take the AVX-512 S+ tree descent. */
#include "dir.h"
#include "stree_rank_avx512.h"

#define PLC_DIR_ONE plc_dir_avx512
#define PLC_DIR_BATCH plc_dir_batch_avx512
#define PLC_DIR_TREE_ONE plc_stree_avx512
#define PLC_DIR_TREE_BATCH plc_stree_batch_avx512
#include "dir_body.h"
