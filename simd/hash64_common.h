/*
 * hash64_common.h -- what the placement hashes share: the constants and the
 * 64x64->128 multiply-fold ("mum") of both placer-v1 (hash64_body.h) and
 * placer-v2 (hash64_v2_body.h), and the zero-padded read of a key's tail.
 */
#ifndef PLC_SIMD_HASH64_COMMON_H
#define PLC_SIMD_HASH64_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "load.h"

#define PLC_H64_K0 UINT64_C(0x9E3779B97F4A7C15)
#define PLC_H64_K1 UINT64_C(0xD6E8FEB86659FD93)
#define PLC_H64_K2 UINT64_C(0xA0761D6478BD642F)
#define PLC_H64_K3 UINT64_C(0xE7037ED1A0B428DB)

/* high ^ low of the 128-bit product x * y */
static inline uint64_t plc_mum_fold(uint64_t x, uint64_t y)
{
#if defined(__x86_64__) && defined(__GNUC__) && defined(__BMI2__)
    /* BMI2's mulx (the AVX2 kernels): x in rdx, both halves into any
     * registers and no flags, so the batch loops need no moves around it. */
    uint64_t lo, hi;
    __asm__("mulx %3, %0, %1" : "=r"(lo), "=r"(hi) : "d"(x), "rm"(y));
    return hi ^ lo;
#elif defined(__x86_64__) && defined(__GNUC__)
    /* One mul into rdx:rax, stated: GCC 12 stores and reloads the low half
     * of an __int128 product inside unrolled batch loops. */
    uint64_t lo, hi;
    __asm__("mulq %3" : "=a"(lo), "=d"(hi) : "a"(x), "rm"(y) : "cc");
    return hi ^ lo;
#elif defined(__SIZEOF_INT128__)
    unsigned __int128 p = (unsigned __int128)x * y;
    return (uint64_t)(p >> 64) ^ (uint64_t)p;
#else
    uint64_t xl = (uint32_t)x, xh = x >> 32, yl = (uint32_t)y, yh = y >> 32;
    uint64_t ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    uint64_t lo = (mid << 32) | (uint32_t)ll;
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return hi ^ lo;
#endif
}

/* The last n (1..7) bytes of a key of length len as a zero-padded word. A
 * key of 8 bytes or more reads the last 8 bytes and shifts: one load. */
static inline uint64_t plc_tail_word(const unsigned char *p, size_t n, size_t len)
{
    return len >= 8 ? plc_load64le(p + n - 8) >> (64 - 8 * n) : plc_load_partial_le(p, n);
}

#endif
