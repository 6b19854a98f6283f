/* jumpback.c -- the portable first step of JumpBackHash (jumpback.h). */
#include <string.h>

#include "jumpback.h"

/* Keys a block: their r0 on the stack between the two loops. */
#define BLOCK 64

/* plc_jumpback_first in lane-wise steps only (shifts, ors, xors, no count
 * of leading zeros or parity flag), so that compilers vectorize a loop of
 * it with the baseline instruction set (SSE2 on x86-64, NEON on AArch64):
 * x's bits smeared down give 2^(i+1) - 1, 2^i and the bits below it
 * (both 0 when x = 0); x folded onto its low bit gives the parity, whose
 * mask picks the half. */
static inline uint32_t first_in_lanes(uint64_t r0, uint32_t mask)
{
    uint32_t even = (uint32_t)r0, odd = (uint32_t)(r0 >> 32), x = (even ^ odd) & mask;
    uint32_t s = x | x >> 1;
    s |= s >> 2;
    s |= s >> 4;
    s |= s >> 8;
    s |= s >> 16;
    uint32_t p = x ^ x >> 16;
    p ^= p >> 8;
    p ^= p >> 4;
    p ^= p >> 2;
    p ^= p >> 1;
    uint32_t half = even ^ ((even ^ odd) & (0u - (p & 1))), below = s >> 1;
    return (s ^ below) | (half & below);
}

/* A block's mixes first (the general registers' multiplies), then its
 * first points from them (the vector unit, where the compiler uses it).
 * The points' loop always runs BLOCK keys, a count known when compiled,
 * which compilers' cheapest vectorizing (GCC's at -O2) asks for; a last
 * block's missing keys are zeros, their points not copied out. */
void plc_jumpback_first_scalar(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out)
{
    uint64_t r[BLOCK];
    uint32_t tail[BLOCK];
    for (size_t at = 0; at < n; at += BLOCK) {
        size_t m = n - at < BLOCK ? n - at : BLOCK;
        uint32_t *to = m == BLOCK ? out + at : tail;
        for (size_t i = 0; i < m; i++)
            r[i] = plc_mix64(h[at + i] + PLC_GOLDEN64);
        for (size_t i = m; i < BLOCK; i++)
            r[i] = 0;
        for (size_t i = 0; i < BLOCK; i++)
            to[i] = first_in_lanes(r[i], mask);
        if (to == tail)
            memcpy(out + at, tail, m * sizeof tail[0]);
    }
}
