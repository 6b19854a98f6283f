/*
 * hash64_body.h -- hash id "placer-v1", the legacy placement hash: what
 * placer_hash64 was before format v2, kept bit for bit so that v1 snapshots
 * (and v2 snapshots built from them, key_hash "placer-v1") keep placing every
 * key where they did. New snapshots use placer-v2 (hash64_v2_body.h).
 *
 * Compiled once per CRC implementation (software tables, SSE4.2 / ARMv8
 * instruction), so the paths cannot drift apart. Define PLC_HASH64_STEP
 * (uint32_t step(uint32_t crc, uint64_t word), the raw crc32c register
 * update) before including it, and PLC_HASH64_NAME / PLC_HASH64_BATCH_NAME
 * to get the out-of-line functions; the inline plc_hash64_v1_body is always
 * defined. PLC_HASH64_STEP stays defined (hash64_v2_body.h uses it too).
 *
 * The key is read as little-endian 64-bit words, the last one zero-padded.
 * Two lanes run side by side:
 *   a: CRC-32C over every word, started from the seed's low 32 bits;
 *   b: a 64-bit multiply-fold over pairs of words, b = fold((w0 ^ b ^ K1) *
 *      (w1 ^ K2)), where fold(x) = high(x) ^ low(x) of the 128-bit product
 *      (wyhash's "mum").
 * The output is one more multiply-fold of b and the CRC lane (a product, not
 * a bijection: distinct pre-states may meet).
 *
 * Known defect, the reason placer-v2 exists: the multiplier operand
 * (w1 ^ K2) holds no seed, so a word w1 == K2 makes the product zero and
 * erases b (and the seed in it), whatever the seed; the CRC lane is linear,
 * so first words that differ by an element of the CRC map's 32-dimensional
 * kernel leave it unchanged too. Such keys collide under every seed
 * (test_hash64 finds them; the differential search there runs against this
 * function to show that it has teeth).
 */
#include "hash64_common.h"

#ifndef PLC_HASH64_V1_BODY
#define PLC_HASH64_V1_BODY
/* One pair of words into both lanes. */
#define PLC_H64_PAIR(w0, w1)                                      \
    do {                                                          \
        a = PLC_HASH64_STEP(a, (w0));                             \
        a = PLC_HASH64_STEP(a, (w1));                             \
        b = plc_mum_fold((w0) ^ b ^ PLC_H64_K1, (w1) ^ PLC_H64_K2); \
    } while (0)

static inline uint64_t plc_hash64_v1_body(uint64_t seed, const void *key, size_t len)
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
#endif

#if defined(PLC_HASH64_NAME)
uint64_t PLC_HASH64_NAME(uint64_t seed, const void *key, size_t len)
{
    return plc_hash64_v1_body(seed, key, len);
}

void PLC_HASH64_BATCH_NAME(uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                           uint64_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = plc_hash64_v1_body(seed, keys[i], lens[i]);
}

/* The same, with the signature every snapshot hash shares (hashfn.h). */
#if defined(PLC_HASH64_KEYED_NAME)
#include "hashfn.h"

uint64_t PLC_HASH64_KEYED_NAME(const plc_hash_key *k, const void *key, size_t len)
{
    return plc_hash64_v1_body(k->seed, key, len);
}

void PLC_HASH64_KEYED_BATCH_NAME(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                            size_t n, uint64_t *out)
{
    PLC_HASH64_BATCH_NAME(k->seed, keys, lens, n, out);
}

#undef PLC_HASH64_KEYED_NAME
#undef PLC_HASH64_KEYED_BATCH_NAME
#endif

#undef PLC_HASH64_NAME
#undef PLC_HASH64_BATCH_NAME
#endif
