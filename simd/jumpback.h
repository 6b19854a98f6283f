/*
 * jumpback.h -- the first step of JumpBackHash (Ertl 2024; the strategy is
 * engine/strategies/strategy_jumpback.c) for a batch of keys' positions:
 * SplitMix64's first output r0 of the position, and from it the largest
 * point of the highest range whose bit is set (or 0). Most keys' bucket is
 * that point; the strategy walks the few whose point is >= n.
 */
#ifndef PLC_SIMD_JUMPBACK_H
#define PLC_SIMD_JUMPBACK_H

#include <stddef.h>
#include <stdint.h>

#define PLC_GOLDEN64 UINT64_C(0x9e3779b97f4a7c15)

/* SplitMix64's finaliser: a bijection of 64-bit words whose every output
 * bit depends on every input bit. */
static inline uint64_t plc_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* __builtin_parity(x) ? if_odd : if_even. On x86-64 the parity flag of
 * the last fold's xor drives a cmov: three steps from x to the answer,
 * where setnp and a test before the select (what compilers make of the
 * plain form) or a shift by 32 * the parity take five. */
static inline uint32_t plc_parity_select(uint32_t x, uint32_t if_odd, uint32_t if_even)
{
#if defined(__GNUC__) && defined(__x86_64__)
    uint32_t t = x ^ (x >> 16);
    __asm__("xorb %h1, %b1\n\tcmovnp %2, %0" : "+r"(if_even), "+Q"(t) : "r"(if_odd) : "cc");
    return if_even;
#else
    return __builtin_parity(x) ? if_odd : if_even;
#endif
}

/* The first point from r0 (mask: the range bits up to n-1's, n >= 2): the
 * ranges' bits are r0's halves xored; the highest set one, 2^i, plus the
 * low i bits of r0's low half (an even number of set bits) or high half
 * (odd); 0 when no bit is set. The half is selected (plc_parity_select)
 * while the highest bit is found, the parity's three steps being fewer
 * than the count of leading zeros and shift, so that only a mask and an
 * or follow 2^i (masking both halves first, then selecting, put the
 * select on the chain: 3% more latency a lookup); x == 0 needs no test: the
 * top point is kept only when x has it (lo & x), and lo - 1 is then 0. No
 * branch. */
static inline uint32_t plc_jumpback_first(uint64_t r0, uint32_t mask)
{
    uint32_t even = (uint32_t)r0, odd = (uint32_t)(r0 >> 32), x = (even ^ odd) & mask;
    uint32_t lo = UINT32_C(1) << (31 ^ __builtin_clz(x | 1)), below = lo - 1;
    return (lo & x) | (plc_parity_select(x, odd, even) & below);
}

/* out[i] = plc_jumpback_first(plc_mix64(h[i] + PLC_GOLDEN64), mask). */
typedef void (*plc_jumpback_first_fn)(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);

/* Portable: a block's mixes, then its points in lane-wise steps that
 * compilers vectorize with the baseline instruction set (no branch). */
void plc_jumpback_first_scalar(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
/* SSE4.1: the mix in the general registers, the rest four keys a vector;
 * the highest bit through a float's exponent, the parity by a multiply. */
void plc_jumpback_first_sse41(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
/* AVX2: four keys a vector; each 64-bit product from three 32-bit ones,
 * the highest bit through a double's exponent, the parity by a multiply. */
void plc_jumpback_first_avx2(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
/* AVX-512 (F, DQ): eight keys a vector; the highest bit through a double's
 * exponent, the parity by a multiply. */
void plc_jumpback_first_avx512(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);

#endif
