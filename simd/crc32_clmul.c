/*
 * crc32_clmul.c -- IEEE CRC-32 by carry-less multiplication (-msse4.2
 * -mpclmul, through SIMDe), after Gopal et al., "Fast CRC Computation for
 * Generic Polynomials Using PCLMULQDQ" (Intel, 2009).
 *
 * Four 128-bit lanes fold 64 bytes per step: each lane is multiplied by
 * x^(512+64) and x^512 mod P (k1, k2) and xored with the next 64 bytes. The
 * lanes then fold into one (k3, k4 = x^(128+64), x^128), 16 bytes at a
 * time, then to 64 bits (k5), then Barrett reduction (P and mu) gives the
 * 32-bit register. The constants are those of the reflected polynomial,
 * each shifted left one bit because the reflected product of two 32-bit
 * values is 63 bits wide. Inputs of 16 to 63 bytes fold one lane from the
 * start (so 32-byte keys take this path too); inputs under 16 bytes, and
 * the tail after the last 16-byte block, go through the slicing-by-8 tables.
 */
#if defined(__PCLMUL__)
/* SIMDe 0.7.4 (Debian 12) has two bugs here: its clmul.h calls the native
 * _mm_clmulepi64_si128 without including the header that declares it, and
 * in the native case it defines simde_mm_clmulepi64_si128 as itself, so the
 * portable bit-by-bit code runs (measured: 1 MiB in 1.7 ms, slower than
 * tables). With PCLMUL enabled, call the instruction directly; the types
 * agree (simde__m128i is __m128i natively). */
#include <wmmintrin.h>
#define CLMUL(a, b, imm) _mm_clmulepi64_si128((a), (b), (imm))
#else
#define CLMUL(a, b, imm) simde_mm_clmulepi64_si128((a), (b), (imm))
#endif
#include <simde/x86/clmul.h>
#include <simde/x86/sse4.1.h>

#include "crc32.h"

#define K1 UINT64_C(0x0154442bd4)
#define K2 UINT64_C(0x01c6e41596)
#define K3 UINT64_C(0x01751997d0)
#define K4 UINT64_C(0x00ccaa009e)
#define K5 UINT64_C(0x0163cd6124)
#define POLY UINT64_C(0x01db710641)
#define MU UINT64_C(0x01f7011641)

static inline simde__m128i load(const unsigned char *p)
{
    return simde_mm_loadu_si128((const simde__m128i *)p);
}

/* x * (k_lo, k_hi): the low half times k_lo xor the high half times k_hi. */
static inline simde__m128i fold(simde__m128i x, simde__m128i k)
{
    return simde_mm_xor_si128(CLMUL(x, k, 0x00), CLMUL(x, k, 0x11));
}

/* The raw register after n >= 16 bytes (n multiple of 16) from `reg`:
 * four lanes while 64 bytes remain, then one lane, 16 bytes a step (a key
 * of 16 to 63 bytes starts there). */
static uint32_t fold_blocks(uint32_t reg, const unsigned char *p, size_t n)
{
    simde__m128i x1 = simde_mm_xor_si128(load(p), simde_mm_cvtsi32_si128((int)reg));
    simde__m128i k = simde_mm_set_epi64x((int64_t)K4, (int64_t)K3);
    if (n >= 64) {
        simde__m128i x2 = load(p + 16), x3 = load(p + 32), x4 = load(p + 48);
        simde__m128i k12 = simde_mm_set_epi64x((int64_t)K2, (int64_t)K1);
        p += 64;
        n -= 64;
        while (n >= 64) {
            x1 = simde_mm_xor_si128(fold(x1, k12), load(p));
            x2 = simde_mm_xor_si128(fold(x2, k12), load(p + 16));
            x3 = simde_mm_xor_si128(fold(x3, k12), load(p + 32));
            x4 = simde_mm_xor_si128(fold(x4, k12), load(p + 48));
            p += 64;
            n -= 64;
        }
        x1 = simde_mm_xor_si128(fold(x1, k), x2);
        x1 = simde_mm_xor_si128(fold(x1, k), x3);
        x1 = simde_mm_xor_si128(fold(x1, k), x4);
    } else {
        p += 16;
        n -= 16;
    }
    while (n >= 16) {
        x1 = simde_mm_xor_si128(fold(x1, k), load(p));
        p += 16;
        n -= 16;
    }
    /* 128 -> 64 bits: the low half times K4, xored into the high half. */
    simde__m128i mask32 = simde_mm_setr_epi32(-1, 0, -1, 0);
    simde__m128i x2b = CLMUL(x1, k, 0x10);
    x1 = simde_mm_xor_si128(simde_mm_srli_si128(x1, 8), x2b);
    /* 64 -> 32 bits with K5. */
    simde__m128i k5 = simde_mm_set_epi64x(0, (int64_t)K5);
    x2b = simde_mm_srli_si128(x1, 4);
    x1 = simde_mm_and_si128(x1, mask32);
    x1 = simde_mm_xor_si128(CLMUL(x1, k5, 0x00), x2b);
    /* Barrett reduction to the 32-bit register. */
    simde__m128i pm = simde_mm_set_epi64x((int64_t)MU, (int64_t)POLY);
    simde__m128i t = simde_mm_and_si128(x1, mask32);
    t = CLMUL(t, pm, 0x10);
    t = simde_mm_and_si128(t, mask32);
    t = CLMUL(t, pm, 0x00);
    x1 = simde_mm_xor_si128(x1, t);
    return (uint32_t)simde_mm_extract_epi32(x1, 1);
}

uint32_t plc_crc32_clmul(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t reg = ~crc;
    if (len >= 16) {
        size_t blocks = len & ~(size_t)15;
        reg = fold_blocks(reg, p, blocks);
        p += blocks;
        len -= blocks;
    }
    return ~plc_crc32_sw_raw(reg, p, len);
}
