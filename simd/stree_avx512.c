/* stree_avx512.c -- the S+ tree descent eight keys at a time: one 64-byte
 * load and one vpcmpgtq into a mask per level (-mavx512f/dq/bw/vl, SIMDe;
 * the ranks: stree_rank_avx512.h). The fused kernels hash with the crc32
 * instruction: every CPU with this instruction set has it, and the
 * dispatcher requires SSE4.2 too. */
#include "hw_crc_step.h"
#include "stree_rank_avx512.h"

#define PLC_STREE_ONE plc_stree_avx512
#define PLC_STREE_BATCH plc_stree_batch_avx512
#define PLC_STREE_INDEX plc_stree_index_avx512
#define PLC_STREE_KEY_ONE plc_stree_key_avx512
#define PLC_STREE_KEY_BATCH plc_stree_key_batch_avx512
#define PLC_HASH64_STEP hw_crc_step
#include "stree_body.h"
