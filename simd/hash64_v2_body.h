/*
 * hash64_v2_body.h -- hash id "placer-v2", the default placement hash
 * (placer_hash64) since snapshot format v2. Define PLC_HASH64_STEP (the raw
 * crc32c register update, as for hash64_body.h) before including it, and
 * PLC_HASH64_V2_NAME / PLC_HASH64_V2_BATCH_NAME for the out-of-line
 * functions; the inline plc_hash64_v2_body is always defined.
 *
 * The same two lanes as placer-v1 (a CRC-32C lane, one crc32 instruction per
 * 8-byte word, and a multiply-fold lane over pairs of words, on different
 * ports), with the seed in every operand so that no word value chosen
 * without knowing the seed can take it out:
 *
 *   s = rotl(seed, 29) ^ K2           the multiplier side's seed: rotated,
 *                                      so the two operands can never be
 *                                      swapped for one another by a
 *                                      seed-independent change
 *                                      (multiplication commutes, and the
 *                                      operands carry different functions
 *                                      of the seed);
 *   a = lo32(seed) ^ hi32(seed)        all 64 seed bits enter the CRC lane;
 *   b = seed ^ K0 ^ len
 *   per pair:  a = crc(crc(a, w0), w1)
 *              x = w0 ^ b,  y = w1 ^ s
 *              b = fold(x * y) + x
 *   out = fold(b * (a ^ s ^ K1))            (a zero-extended to 64 bits)
 *
 * fold(x) = high ^ low of the 128-bit product. Why each piece:
 *  - placer-v1 multiplied by (w1 ^ K2): w1 == K2 zeroed the product for
 *    every seed, erasing the seed and the first word from the lane. Here a
 *    zero operand needs w1 == s or w0 == b, values that depend on the
 *    seed (and, for b, on every earlier word). A zero y still erases
 *    nothing: "+ x" carries the chain and w0 on (one add after the fold);
 *    s enters every pair, so no word value removes the seed from the lane;
 *  - the CRC lane is GF(2)-linear (a word difference in its 32-dimensional
 *    kernel leaves it unchanged, under every seed), so it never reaches the
 *    output except through the final product with b, which every word
 *    difference changes (integer multiplication and the carries of "+ x"
 *    are not GF(2)-linear);
 *  - the length enters b, so zero padding cannot collide "ab" with "ab\0".
 * The output is a product, not a bijection of a pre-state. test_hash64
 * searches the structured pairs that broke placer-v1 (CRC-kernel
 * differences at every word position and length, other words equal to every
 * constant here, and words that zero a product under the seed) across
 * random seeds. Whoever knows the seed can still search for collisions (the
 * seed is in every snapshot): only a secret key stops that (SipHash-1-3,
 * siphash.h).
 *
 * Cost: about placer-v1's: per pair one add more and one xor less, and two
 * operations per key for the seed (hoisted out of batch loops).
 */
#include "hash64_common.h"

#ifndef PLC_HASH64_V2_BODY
#define PLC_HASH64_V2_BODY

/* One pair of words into both lanes. */
#define PLC_H64V2_PAIR(w0, w1)                                       \
    do {                                                             \
        a = PLC_HASH64_STEP(a, (w0));                                \
        a = PLC_HASH64_STEP(a, (w1));                                \
        uint64_t x_ = (w0) ^ b, y_ = (w1) ^ s;                      \
        b = plc_mum_fold(x_, y_) + x_;                              \
    } while (0)

/* The multiplier side's seed (tests aim words at zero products with it). */
static inline uint64_t plc_hash64_v2_mult_seed(uint64_t seed)
{
    return (seed << 29 | seed >> 35) ^ PLC_H64_K2;
}

static inline uint64_t plc_hash64_v2_body(uint64_t seed, const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t s = plc_hash64_v2_mult_seed(seed), sk = s ^ PLC_H64_K1;
    uint32_t a = (uint32_t)seed ^ (uint32_t)(seed >> 32);
    uint64_t b = seed ^ PLC_H64_K0 ^ len;
    /* Keys of 17..32 bytes, the common case, take straight-line code; the
     * words and pairs are exactly those of the general loop below. */
    if (len > 16 && len <= 32) {
        uint64_t w0 = plc_load64le(p), w1 = plc_load64le(p + 8);
        PLC_H64V2_PAIR(w0, w1);
        uint64_t w2 = len > 24 ? plc_load64le(p + 16) : plc_tail_word(p + 16, len - 16, len);
        uint64_t w3 = len > 24 ? plc_tail_word(p + 24, len - 24, len) : 0;
        if (len == 32)
            w3 = plc_load64le(p + 24);
        PLC_H64V2_PAIR(w2, w3);
    } else {
        size_t n = len;
        while (n >= 16) {
            uint64_t w0 = plc_load64le(p), w1 = plc_load64le(p + 8);
            PLC_H64V2_PAIR(w0, w1);
            p += 16;
            n -= 16;
        }
        if (n) {
            uint64_t w0, w1 = 0;
            if (n > 8) {
                w0 = plc_load64le(p);
                w1 = plc_tail_word(p + 8, n - 8, len);
            } else {
                w0 = n == 8 ? plc_load64le(p) : plc_tail_word(p, n, len);
            }
            PLC_H64V2_PAIR(w0, w1);
        }
    }
    return plc_mum_fold(b, a ^ sk);
}

#undef PLC_H64V2_PAIR
#endif

#if defined(PLC_HASH64_V2_NAME)
uint64_t PLC_HASH64_V2_NAME(uint64_t seed, const void *key, size_t len)
{
    return plc_hash64_v2_body(seed, key, len);
}

/* The step on a 64-bit chain: with PLC_HASH64_STEP64 defined (the
 * hardware's crc32q, whose result is already zero-extended), no move
 * truncates the chain between steps. */
#ifdef PLC_HASH64_STEP64
#define PLC_H64V2_STEP64(c, w) PLC_HASH64_STEP64((c), (w))
#else
#define PLC_H64V2_STEP64(c, w) ((uint64_t)PLC_HASH64_STEP((uint32_t)(c), (w)))
#endif

/* placer-v2 of a 32-byte key (plc_hash64_v2_body with len 32: the same
 * words, pairs and result) with the seed's terms hoisted out of the loop:
 * b0 = seed ^ K0 ^ 32, sm the multiplier seed, sk32 = sm ^ K1 ^ crc4(a0).
 * The raw CRC lane is linear (crc(x ^ y, v ^ w) = crc(x, v) ^ crc(y, w)),
 * so it starts from 0 and its start a0's part, four steps of zero words,
 * is folded into the final term once a batch: one register less in the
 * loop (as simd/buckets_body.h's bkt_hash32). */
static inline uint64_t plc_h64v2_32(const void *key, uint64_t b0, uint64_t sm, uint64_t sk32)
{
    const unsigned char *p = key;
    uint64_t w0 = plc_load64le(p), w1 = plc_load64le(p + 8);
    uint64_t w2 = plc_load64le(p + 16), w3 = plc_load64le(p + 24);
    uint64_t a = PLC_H64V2_STEP64(PLC_H64V2_STEP64(0, w0), w1);
    uint64_t x = w0 ^ b0, b = plc_mum_fold(x, w1 ^ sm) + x;
    a = PLC_H64V2_STEP64(PLC_H64V2_STEP64(a, w2), w3);
    x = w2 ^ b;
    b = plc_mum_fold(x, w3 ^ sm) + x;
    return plc_mum_fold(b, a ^ sk32);
}

/* A run of 32-byte keys: the loop over plc_h64v2_32, its three terms in
 * registers. */
static void plc_h64v2_run32(uint64_t seed, const void *const *keys, size_t n, uint64_t *out)
{
    uint64_t sm = plc_hash64_v2_mult_seed(seed), a0 = (uint32_t)seed ^ (uint32_t)(seed >> 32);
    for (int i = 0; i < 4; i++)
        a0 = PLC_H64V2_STEP64(a0, 0);
    const uint64_t b0 = seed ^ PLC_H64_K0 ^ 32, sk32 = sm ^ PLC_H64_K1 ^ a0;
    for (size_t i = 0; i < n; i++)
        out[i] = plc_h64v2_32(keys[i], b0, sm, sk32);
}

/* Several keys' chains in flight: the body is inlined and the iterations
 * are independent, so the out-of-order core overlaps one key's multiply
 * latency with the next key's CRC steps. Lengths are checked once per run
 * of 64 keys: a run of 32-byte keys (fixed-size keys, the usual case)
 * takes plc_h64v2_run32, where no length is tested and the seed's terms
 * are hoisted. */
void PLC_HASH64_V2_BATCH_NAME(uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                              uint64_t *out)
{
    for (size_t i = 0; i < n;) {
        size_t e = n - i < 64 ? n : i + 64, diff = 0;
        for (size_t j = i; j < e; j++)
            diff |= lens[j] ^ 32;
        if (!diff) {
            plc_h64v2_run32(seed, keys + i, e - i, out + i);
            i = e;
        } else
            for (; i < e; i++)
                out[i] = plc_hash64_v2_body(seed, keys[i], lens[i]);
    }
}

/* The same, with the signature every snapshot hash shares (hashfn.h). */
#if defined(PLC_HASH64_V2_KEYED_NAME)
#include "hashfn.h"

uint64_t PLC_HASH64_V2_KEYED_NAME(const plc_hash_key *k, const void *key, size_t len)
{
    return plc_hash64_v2_body(k->seed, key, len);
}

void PLC_HASH64_V2_KEYED_BATCH_NAME(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                            size_t n, uint64_t *out)
{
    PLC_HASH64_V2_BATCH_NAME(k->seed, keys, lens, n, out);
}

#undef PLC_HASH64_V2_KEYED_NAME
#undef PLC_HASH64_V2_KEYED_BATCH_NAME
#endif

#undef PLC_H64V2_STEP64
#undef PLC_HASH64_V2_NAME
#undef PLC_HASH64_V2_BATCH_NAME
#endif
