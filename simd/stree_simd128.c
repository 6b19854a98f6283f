/*
 * stree_simd128.c -- the S+ tree descent two keys at a time: SSE4.2's
 * pcmpgtq on x86-64 (built with -msse4.2), NEON's vcgtq_s64 on AArch64,
 * both through SIMDe (the ranks: stree_rank_simd128.h). The fused kernels
 * hash with the crc32 instruction: every CPU with this instruction set
 * has it, and the dispatcher requires SSE4.2 too.
 */
#include "hw_crc_step.h"
#include "stree_rank_simd128.h"

#define PLC_STREE_ONE plc_stree_simd128
#define PLC_STREE_BATCH plc_stree_batch_simd128
#define PLC_STREE_INDEX plc_stree_index_simd128
#define PLC_STREE_KEY_ONE plc_stree_key_simd128
#define PLC_STREE_KEY_BATCH plc_stree_key_batch_simd128
#define PLC_HASH64_STEP hw_crc_step
#include "stree_body.h"
