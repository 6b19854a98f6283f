/*
 * crc32c_hw.c -- CRC-32C with the CPU's crc32c instruction (SSE4.2 on x86-64,
 * the CRC extension on ARMv8), reached through SIMDe. Built with its own
 * flags (-msse4.2 or -march=armv8-a+crc) and called only after the
 * dispatcher saw the feature, so a binary built here runs on older CPUs.
 *
 * The instruction has a latency of about 3 cycles and a throughput of one
 * per cycle, so one dependent chain uses a third of the unit. Long buffers
 * are cut into three adjacent blocks whose CRCs run as independent chains
 * and are joined with the shift tables (crc32c_tables.c): first blocks of
 * LONG bytes, then of SHORT bytes, then 8 bytes at a time, then bytes.
 */
#include <simde/x86/sse4.2.h>

#include "crc32c.h"
#include "hw_crc_step.h"
#include "load.h"

static inline const unsigned char *three_way(const unsigned char *p, size_t block, uint32_t *crc,
                                             const uint32_t shift[4][256])
{
    uint64_t c0 = *crc, c1 = 0, c2 = 0;
    const unsigned char *end = p + block;
    do {
        c0 = simde_mm_crc32_u64(c0, plc_load64le(p));
        c1 = simde_mm_crc32_u64(c1, plc_load64le(p + block));
        c2 = simde_mm_crc32_u64(c2, plc_load64le(p + 2 * block));
        p += 8;
    } while (p < end);
    uint32_t c = plc_crc32c_shift(shift, (uint32_t)c0) ^ (uint32_t)c1;
    *crc = plc_crc32c_shift(shift, c) ^ (uint32_t)c2;
    return p + 2 * block;
}

uint32_t plc_crc32c_hw(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t c = ~crc;
    /* No alignment prologue: unaligned 8-byte loads cost the same as aligned
     * ones on the CPUs this runs on, and key-sized inputs are rarely aligned. */
    while (len >= 3 * PLC_CRC32C_LONG) {
        p = three_way(p, PLC_CRC32C_LONG, &c, plc_crc32c_shift_long);
        len -= 3 * PLC_CRC32C_LONG;
    }
    while (len >= 3 * PLC_CRC32C_SHORT) {
        p = three_way(p, PLC_CRC32C_SHORT, &c, plc_crc32c_shift_short);
        len -= 3 * PLC_CRC32C_SHORT;
    }
    while (len >= 8) {
        c = hw_crc_step(c, plc_load64le(p));
        p += 8;
        len -= 8;
    }
    while (len--)
        c = simde_mm_crc32_u8(c, *p++);
    return ~c;
}

#define PLC_HASH64_NAME plc_hash64_hw
#define PLC_HASH64_BATCH_NAME plc_hash64_batch_hw
#define PLC_HASH64_STEP hw_crc_step
#define PLC_HASH64_KEYED_NAME plc_hash_v1_hw
#define PLC_HASH64_KEYED_BATCH_NAME plc_hash_v1_batch_hw
#include "hash64_body.h"

#define PLC_HASH64_V2_NAME plc_hash64_v2_hw
#define PLC_HASH64_V2_BATCH_NAME plc_hash64_v2_batch_hw
#define PLC_HASH64_V2_KEYED_NAME plc_hash_v2_hw
/* crc32q on a 64-bit chain: its result is already zero-extended. */
#define PLC_HASH64_STEP64(c, w) ((uint64_t)simde_mm_crc32_u64((c), (w)))
#define PLC_HASH64_V2_KEYED_BATCH_NAME plc_hash_v2_batch_hw
#include "hash64_v2_body.h"
#undef PLC_HASH64_STEP64
