/* jump.h -- jump consistent hash (Lamping & Veach, 2014). */
#ifndef PLC_SIMD_JUMP_H
#define PLC_SIMD_JUMP_H

#include <stdint.h>

/* The bucket in [0, buckets) of a 64-bit key, exactly the paper's
 * function; -1 when buckets <= 0. */
int32_t plc_jump_hash(uint64_t key, int32_t buckets);

#endif
