/*
 * hash64_body.h -- the one definition of placer_hash64, compiled once per
 * CRC implementation (software tables, SSE4.2 / ARMv8 instruction), so the
 * paths cannot drift apart. Define PLC_HASH64_NAME and PLC_HASH64_STEP
 * (uint32_t step(uint32_t crc, uint64_t word), the raw crc32c register update)
 * before including it.
 *
 * Why two lanes over different inputs: a CRC is linear over GF(2). Two CRC
 * lanes over the same words with different seeds differ by a constant, so
 * together they still carry 32 bits. Lane b therefore reads each word after
 * an xor with the seed and a multiply by an odd constant: integer
 * multiplication is not GF(2)-linear, so the 64-bit pair (a, b) behaves like
 * two independent 32-bit hashes and distinct keys collide with a chance near
 * 2^-64. The length is folded in so that zero padding of the last word does
 * not collide "ab" with "ab\0". The finaliser (murmur3's fmix64, a
 * bijection) spreads every pre-state bit over every output bit.
 */
#include <stddef.h>
#include <stdint.h>

#include "load.h"

#define PLC_H64_K0 UINT64_C(0x9E3779B97F4A7C15)
#define PLC_H64_K1 UINT64_C(0xD6E8FEB86659FD93)
#define PLC_H64_K2 UINT64_C(0xA0761D6478BD642F)

uint64_t PLC_HASH64_NAME(uint64_t seed, const void *key, size_t len)
{
    const unsigned char *p = key;
    const uint64_t sk = seed ^ PLC_H64_K0;
    uint32_t a = (uint32_t)seed, b = (uint32_t)(seed >> 32);
    size_t n = len;
    while (n >= 8) {
        uint64_t w = plc_load64le(p);
        a = PLC_HASH64_STEP(a, w);
        b = PLC_HASH64_STEP(b, (w ^ sk) * PLC_H64_K1);
        p += 8;
        n -= 8;
    }
    if (n) {
        /* A short tail of a long key is read as the last 8 bytes, shifted:
         * one load instead of n. Same value as the zero-padded tail. */
        uint64_t w = len >= 8 ? plc_load64le(p + n - 8) >> (64 - 8 * n) : plc_load_partial_le(p, n);
        a = PLC_HASH64_STEP(a, w);
        b = PLC_HASH64_STEP(b, (w ^ sk) * PLC_H64_K1);
    }
    uint64_t h = (((uint64_t)a << 32) | b) ^ ((uint64_t)len * PLC_H64_K2) ^ sk;
    h ^= h >> 33;
    h *= UINT64_C(0xFF51AFD7ED558CCD);
    h ^= h >> 33;
    h *= UINT64_C(0xC4CEB9FE1A85EC53);
    h ^= h >> 33;
    return h;
}

#undef PLC_HASH64_NAME
#undef PLC_HASH64_STEP
