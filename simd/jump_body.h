/*
 * jump_body.h -- jump hash's loop carried in doubles, for the kernels
 * compiled with SSE4.1 or wider (roundsd truncates in one instruction).
 *
 * The paper's step is j = (int64)((double)(b + 1) * (2^31 / (double)(r + 1)))
 * with r = key >> 33 after the key's LCG step. The loop only needs b + 1
 * as a double and "j < n": for y >= 0 and an integer n, trunc(y) < n
 * exactly when y < n, and then trunc(y) < 2^31, so carrying
 * b1 = trunc(y) + 1.0 in a double gives the same b as the integer loop,
 * bit for bit (every operation is exact or the paper's own rounding).
 * What it saves is the chain through b: mulsd, roundsd, addsd instead of
 * the two int <-> double conversions.
 */
#ifndef PLC_SIMD_JUMP_BODY_H
#define PLC_SIMD_JUMP_BODY_H

#include <stdint.h>

#define PLC_JUMP_LCG UINT64_C(2862933555777941757)

static inline int32_t plc_jump_dbl(uint64_t key, int32_t buckets)
{
    if (buckets <= 0)
        return -1;
    const double n = (double)buckets;
    double b1 = 1.0; /* b = 0: the first j, 0, is below any n >= 1 */
    for (;;) {
        key = key * PLC_JUMP_LCG + 1;
        double y = b1 * (2147483648.0 / (double)((key >> 33) + 1));
        if (!(y < n))
            return (int32_t)(b1 - 1.0);
        b1 = __builtin_trunc(y) + 1.0;
    }
}

#endif
