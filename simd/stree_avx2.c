/* stree_avx2.c -- the S+ tree descent four keys at a time (-mavx2, SIMDe;
 * the ranks: stree_rank_avx2.h). The fused kernels hash with the crc32
 * instruction: every CPU with this instruction set has it, and the
 * dispatcher requires SSE4.2 too. */
#include "hw_crc_step.h"
#include "stree_rank_avx2.h"

#define PLC_STREE_ONE plc_stree_avx2
#define PLC_STREE_BATCH plc_stree_batch_avx2
#define PLC_STREE_INDEX plc_stree_index_avx2
#define PLC_STREE_KEY_ONE plc_stree_key_avx2
#define PLC_STREE_KEY_BATCH plc_stree_key_batch_avx2
#define PLC_HASH64_STEP hw_crc_step
#include "stree_body.h"
