/*
 * hw_crc_step.h -- one CRC-32C step over 64 bits with the CPU's crc32
 * instruction (SSE4.2's crc32q, ARMv8's crc32cx, through SIMDe): the step
 * of crc32c_hw.c and of the fused kernels' placer-v1/v2 hashes
 * (PLC_HASH64_STEP). Included only by files built with the flags that
 * allow it (-msse4.2 or more, -march=armv8-a+crc) and called only after
 * the dispatcher saw the feature.
 */
#ifndef PLC_SIMD_HW_CRC_STEP_H
#define PLC_SIMD_HW_CRC_STEP_H

#include <stdint.h>

#include <simde/x86/sse4.2.h>

static inline uint32_t hw_crc_step(uint32_t crc, uint64_t w)
{
    return (uint32_t)simde_mm_crc32_u64(crc, w);
}

#endif
