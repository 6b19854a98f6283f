/*
 * bucket_hash.h -- the random streams of the bucket strategies (memento,
 * anchor, dx, jumpback, binomial): every draw they make is a function of
 * the key's 64-bit position and a small index (a bucket, a level, a probe
 * number), so answers are the same on every machine and for every n.
 */
#ifndef PLC_ENGINE_BUCKET_HASH_H
#define PLC_ENGINE_BUCKET_HASH_H

#include <stdint.h>

#include "jumpback.h" /* PLC_GOLDEN64 and plc_mix64, SplitMix64's finaliser */

/* Draw number `i` of the stream of position h (the papers' h_i(k), a hash
 * of the key seeded by i). */
static inline uint64_t plc_draw(uint64_t h, uint64_t i)
{
    return plc_mix64(h + (i + 1) * PLC_GOLDEN64);
}

/* A draw to [0, n), n < 2^32, by a multiply of its top 32 bits (Lemire):
 * no division, a bias below n / 2^32. */
static inline uint32_t plc_below(uint64_t r, uint32_t n)
{
    return (uint32_t)(((r >> 32) * (uint64_t)n) >> 32);
}

/* x, hidden from the optimiser, so that a select built from it stays a
 * select (a compiler that knows the value would branch on it again). */
static inline uint32_t plc_opaque32(uint32_t x)
{
#if defined(__GNUC__)
    __asm__("" : "+r"(x));
#endif
    return x;
}

/* c ? if_nonzero : if_zero as a conditional move on x86-64 (a select a
 * compiler may not turn back into a branch, one step after the later of
 * its operands), the same as plain C elsewhere. */
static inline uint32_t plc_select32(uint32_t c, uint32_t if_nonzero, uint32_t if_zero)
{
#if defined(__GNUC__) && defined(__x86_64__)
    __asm__("test %1, %1\n\tcmovne %2, %0" : "+r"(if_zero) : "r"(c), "r"(if_nonzero) : "cc");
    return if_zero;
#else
    return c ? if_nonzero : if_zero;
#endif
}

#endif
