/*
 * hash64_body.h -- the one definition of placer_hash64, compiled once per
 * CRC implementation (software tables, SSE4.2 / ARMv8 instruction), so the
 * paths cannot drift apart. Define PLC_HASH64_NAME and PLC_HASH64_STEP
 * (uint32_t step(uint32_t crc, uint64_t word), the raw crc32c register update)
 * and PLC_HASH64_BATCH_NAME before including it; or only PLC_HASH64_STEP,
 * to get the inline plc_hash64_body alone (the fused lookup kernels of
 * stree_body.h). The batch form hashes many keys with the body inlined: a
 * call per key through a function pointer costs about a third of a 32-byte
 * hash.
 *
 * The key is read as little-endian 64-bit words, the last one zero-padded.
 * Two lanes run side by side:
 *   a: CRC-32C over every word (the crc32 unit, one instruction per word);
 *   b: a 64-bit multiply-fold over pairs of words, b = fold((w0 ^ b ^ K1) *
 *      (w1 ^ K2)), where fold(x) = high(x) ^ low(x) of the 128-bit product
 *      (wyhash's "mum"; on the multiplier, a different port from the CRC).
 * Why not two CRC lanes: a CRC is linear over GF(2), so two CRC lanes over
 * the same words with different seeds differ by a constant and together
 * still carry 32 bits. Integer multiplication is not GF(2)-linear, so (a, b)
 * behave as independent hashes and distinct keys collide with a chance near
 * 2^-64; test_hash64 measures it. The length is folded in so zero padding of
 * the last word cannot collide "ab" with "ab\0". The finaliser (murmur3's
 * fmix64, a bijection) spreads every bit of the pre-state over the output.
 */
#include <stddef.h>
#include <stdint.h>

#include "load.h"

#ifndef PLC_HASH64_HELPERS
#define PLC_HASH64_HELPERS
#define PLC_H64_K0 UINT64_C(0x9E3779B97F4A7C15)
#define PLC_H64_K1 UINT64_C(0xD6E8FEB86659FD93)
#define PLC_H64_K2 UINT64_C(0xA0761D6478BD642F)
#define PLC_H64_K3 UINT64_C(0xE7037ED1A0B428DB)

/* high ^ low of the 128-bit product x * y */
static inline uint64_t plc_mum_fold(uint64_t x, uint64_t y)
{
#if defined(__SIZEOF_INT128__)
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

/* One pair of words into both lanes. */
#define PLC_H64_PAIR(w0, w1)                                      \
    do {                                                          \
        a = PLC_HASH64_STEP(a, (w0));                             \
        a = PLC_HASH64_STEP(a, (w1));                             \
        b = plc_mum_fold((w0) ^ b ^ PLC_H64_K1, (w1) ^ PLC_H64_K2); \
    } while (0)

static inline uint64_t plc_hash64_body(uint64_t seed, const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t a = (uint32_t)seed;
    uint64_t b = seed ^ PLC_H64_K0 ^ len;
    /* Keys of 9..32 bytes, the common case, take straight-line code; the
     * words and pairs are exactly those of the general loop below. */
    if (len > 16 && len <= 32) {
        PLC_H64_PAIR(plc_load64le(p), plc_load64le(p + 8));
        uint64_t w2 = len > 24 ? plc_load64le(p + 16) : plc_tail_word(p + 16, len - 16, len);
        uint64_t w3 = len > 24 ? plc_tail_word(p + 24, len - 24, len) : 0;
        if (len == 32)
            w3 = plc_load64le(p + 24);
        if (len > 24)
            a = PLC_HASH64_STEP(a, w2), a = PLC_HASH64_STEP(a, w3);
        else
            a = PLC_HASH64_STEP(a, w2);
        b = plc_mum_fold(w2 ^ b ^ PLC_H64_K1, w3 ^ PLC_H64_K2);
    } else {
        size_t n = len;
        while (n >= 16) {
            PLC_H64_PAIR(plc_load64le(p), plc_load64le(p + 8));
            p += 16;
            n -= 16;
        }
        if (n) {
            uint64_t w0, w1 = 0;
            if (n > 8) {
                w0 = plc_load64le(p);
                w1 = plc_tail_word(p + 8, n - 8, len);
                a = PLC_HASH64_STEP(a, w0);
                a = PLC_HASH64_STEP(a, w1);
            } else {
                w0 = n == 8 ? plc_load64le(p) : plc_tail_word(p, n, len);
                a = PLC_HASH64_STEP(a, w0);
            }
            b = plc_mum_fold(w0 ^ b ^ PLC_H64_K1, w1 ^ PLC_H64_K2);
        }
    }
    return plc_mum_fold(b ^ PLC_H64_K3, (((uint64_t)a << 32) | a) ^ PLC_H64_K1 ^ len);
}

#undef PLC_H64_PAIR

#if defined(PLC_HASH64_NAME)
uint64_t PLC_HASH64_NAME(uint64_t seed, const void *key, size_t len)
{
    return plc_hash64_body(seed, key, len);
}

void PLC_HASH64_BATCH_NAME(uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                           uint64_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = plc_hash64_body(seed, keys[i], lens[i]);
}

#undef PLC_HASH64_NAME
#undef PLC_HASH64_BATCH_NAME
#endif
#undef PLC_HASH64_STEP
